package io.fenceguard.hazelcast.bench;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;
import com.hazelcast.internal.util.ThreadUtil;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.hazelcast.HazelcastLeaseProvider;
import io.fenceguard.test.support.HazelcastCpCluster;
import io.fenceguard.test.support.bench.BenchTable;
import io.fenceguard.test.support.bench.PairedLockBenchmark;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Acquire + release on three embedded CP members of its own, at 1 and 4 threads: fenceguard's provider (through
 * {@link LeaseManager}) against the CP {@link FencedLock} used directly ({@code lockAndGetFence} + {@code unlock} on
 * the calling thread); the provider is also measured through its SPI alone (acquire, release: no lease bookkeeping),
 * which tells its own share from {@code LeaseManager}'s. All ask for the lock's proxy on every operation and lock on the same member; each thread uses
 * resources of its own (cycling over 64), so the figures are of the CP group's round trips, not of contention. The
 * provider adds the hand-over of each call to its pool's threads (which keeps its waits bounded) and the lease's
 * bookkeeping.
 *
 * <pre>./mvnw -B -pl guard-hazelcast -am -Dbench=hazelcast -DskipTests verify</pre>
 *
 * <p>The three CP members run in this JVM on a machine whose CPUs are usually shared, so the rate of one round moves
 * with whatever else runs then. The ratio to the anchor is therefore taken round by round (each implementation's
 * rate over the anchor's in the same round, the two measured next to each other), and its median over the rounds is
 * reported, rather than the ratio of medians measured at different times; rounds are many and short for the same
 * reason. CPU per operation is the process's CPU time (the three members' and the callers' threads) over the
 * operations of the round, median over the rounds: it moves far less with the machine's load than the rate.
 *
 * <p>Settings: {@code -Dbench.rounds} (default 10), {@code -Dbench.seconds} per round (default 0.75),
 * {@code -Dbench.warmup} seconds (default 1.5); {@code -Dbench.handoff=true} adds a row of the provider's floor: the
 * FencedLock's two calls each made by a pooled thread while the caller waits for it, as the provider makes them
 * (without it the provider's waits would not be bounded), with no lease around them.
 */
public final class HazelcastLeaseBenchmark {

    private static final String ANCHOR = "FencedLock, used directly";
    private static final String FENCEGUARD = "fenceguard HazelcastLeaseProvider";
    private static final String HANDOFF = "FencedLock, each call handed to a pooled thread";
    private static final ExecutorService handOff = Executors.newCachedThreadPool(work -> {
        Thread thread = new Thread(work, "bench-hand-off");
        thread.setDaemon(true);
        return thread;
    });
    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static volatile long sink;

    private interface Round {
        void run(String resource) throws Exception;
    }

    public static void main(String[] args) {
        PairedLockBenchmark.runAndExit("Hazelcast lease benchmark", HazelcastLeaseBenchmark::measure);
    }

    private static boolean measure() throws Exception {
        int rounds = Integer.getInteger("bench.rounds", 10);
        double seconds = Double.parseDouble(System.getProperty("bench.seconds", "0.75"));
        double warmup = Double.parseDouble(System.getProperty("bench.warmup", "1.5"));
        try (HazelcastCpCluster cluster = HazelcastCpCluster.start(0)) {
            HazelcastInstance member = cluster.member(0);
            System.out.printf("Hazelcast CP, three embedded members; acquire + release, uncontended; %d rounds x %.1f s,"
                    + " warm-up %.1f s%n", rounds, seconds, warmup);
            System.out.printf("machine: %s %s, %d cpus, %s %s%n", System.getProperty("os.name"),
                    System.getProperty("os.arch"), Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.vm.name"), System.getProperty("java.version"));
            try (HazelcastLeaseProvider provider = HazelcastLeaseProvider.of(member);
                 LeaseManager manager = LeaseManager.of(provider,
                         LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build())) {
                Map<String, Round> implementations = new LinkedHashMap<>();
                implementations.put(ANCHOR, resource -> {
                    FencedLock lock = member.getCPSubsystem().getLock("bench-direct:" + resource);
                    sink += lock.lockAndGetFence();
                    lock.unlock();
                });
                if (Boolean.getBoolean("bench.handoff")) {
                    // The provider's floor: each call made by a pooled thread for the caller, which waits with a
                    // timeout of its own, as the provider does to bound its waits; no lease, no bookkeeping.
                    implementations.put(HANDOFF, resource -> {
                        FencedLock lock = member.getCPSubsystem().getLock("bench-handoff:" + resource);
                        long owner = Thread.currentThread().getId();
                        sink += handOff.submit(() -> asOwner(owner, lock::lockAndGetFence)).get(10, TimeUnit.SECONDS);
                        handOff.submit(() -> asOwner(owner, () -> {
                            lock.unlock();
                            return 0L;
                        })).get(10, TimeUnit.SECONDS);
                    });
                }
                implementations.put(FENCEGUARD + ", SPI only", resource -> {
                    LeaseRequest request = new LeaseRequest(ResourceName.of("bench-spi:" + resource),
                            "bench-" + Thread.currentThread().getName(), Duration.ofSeconds(30));
                    Grant grant = provider.acquire(request, Duration.ofSeconds(10));
                    sink += grant.token().value();
                    provider.release(request, grant);
                });
                implementations.put(FENCEGUARD, resource -> {
                    try (Lease lease = manager.acquire("bench-fenceguard:" + resource, Duration.ofSeconds(10))) {
                        sink += lease.token().value();
                    }
                });
                for (int threads : new int[] {1, 4}) {
                    Map<String, Measured[]> measured = new LinkedHashMap<>();
                    for (Map.Entry<String, Round> implementation : implementations.entrySet()) {
                        run(implementation.getValue(), threads, warmup);
                    }
                    List<String> order = new ArrayList<>(implementations.keySet());
                    for (int round = 0; round < rounds; round++) {
                        // A rotating order, so that neither always runs first after the other.
                        for (int i = 0; i < order.size(); i++) {
                            String label = order.get((i + round) % order.size());
                            measured.computeIfAbsent(label, l -> new Measured[rounds])[round] =
                                    run(implementations.get(label), threads, seconds);
                        }
                    }
                    Measured[] anchor = measured.get(ANCHOR);
                    double anchorCpu = median(anchor, (m, r) -> m[r].cpuMicrosPerOp());
                    for (Map.Entry<String, Measured[]> implementation : measured.entrySet()) {
                        Measured[] own = implementation.getValue();
                        double rate = median(own, (m, r) -> m[r].rate());
                        double cpu = median(own, (m, r) -> m[r].cpuMicrosPerOp());
                        double ratio = median(own, (m, r) -> m[r].rate() / anchor[r].rate());
                        System.out.printf("%d thread%s  %-46s %10.0f ops/s  ratio to anchor %.2f (per round %s)"
                                        + "  CPU %6.0f µs/op (%.2f of the anchor's)%n",
                                threads, threads == 1 ? " " : "s", implementation.getKey(), rate, ratio,
                                format(own, anchor), cpu, cpu / anchorCpu);
                        boolean isAnchor = implementation.getKey().equals(ANCHOR);
                        BenchTable.row("hazelcast", implementation.getKey() + ", acquire+release, " + threads
                                        + " thread(s)", rate, "ops/s", isAnchor ? "–" : ANCHOR,
                                isAnchor ? Double.NaN : ratio, Double.NaN, cpu, Double.NaN);
                    }
                }
            }
        }
        BenchTable.print();
        return true;
    }

    /** Runs {@code call} as the lock's owner {@code owner} (the caller's thread), whichever thread makes it. */
    private static long asOwner(long owner, Callable<Long> call) throws Exception {
        ThreadUtil.setThreadId(owner);
        try {
            return call.call();
        } finally {
            ThreadUtil.removeThreadId();
        }
    }

    /** One round of one implementation: its rate, and the process's CPU time per operation meanwhile. */
    private record Measured(double rate, double cpuMicrosPerOp) {
    }

    private interface RoundFigure {
        double of(Measured[] rounds, int round);
    }

    /** {@code threads} threads running {@code round} for {@code seconds}. */
    private static Measured run(Round round, int threads, double seconds) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong operations = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        CountDownLatch done = new CountDownLatch(threads);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String prefix = "t" + t + ":";
            Thread worker = new Thread(() -> {
                try {
                    for (long i = 0; !stop.get(); i++) {
                        round.run(prefix + (i % 64));
                        operations.incrementAndGet();
                    }
                } catch (Exception e) {
                    failures.incrementAndGet();
                    e.printStackTrace(System.out);
                } finally {
                    done.countDown();
                }
            }, "bench-" + t);
            worker.setDaemon(true);
            workers.add(worker);
        }
        long cpuStart = PROCESS.getProcessCpuTime();
        long start = System.nanoTime();
        workers.forEach(Thread::start);
        TimeUnit.MILLISECONDS.sleep((long) (seconds * 1000));
        stop.set(true);
        if (!done.await(30, TimeUnit.SECONDS) || failures.get() > 0) {
            throw new IllegalStateException("a benchmark thread failed or did not stop");
        }
        long elapsed = System.nanoTime() - start;
        long cpu = PROCESS.getProcessCpuTime() - cpuStart;
        long ops = Math.max(1, operations.get());
        return new Measured(operations.get() / (elapsed / 1e9), cpu / 1e3 / ops);
    }

    private static double median(Measured[] rounds, RoundFigure figure) {
        double[] sorted = new double[rounds.length];
        for (int r = 0; r < rounds.length; r++) {
            sorted[r] = figure.of(rounds, r);
        }
        Arrays.sort(sorted);
        int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }

    private static String format(Measured[] rounds, Measured[] anchor) {
        StringBuilder text = new StringBuilder();
        for (int r = 0; r < rounds.length; r++) {
            text.append(r == 0 ? "" : " ").append(String.format("%.2f", rounds[r].rate() / anchor[r].rate()));
        }
        return text.toString();
    }
}
