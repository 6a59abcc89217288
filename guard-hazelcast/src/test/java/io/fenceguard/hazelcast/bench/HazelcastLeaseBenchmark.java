package io.fenceguard.hazelcast.bench;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Acquire + release on three embedded CP members of its own, at 1 and 4 threads: fenceguard's provider (through
 * {@link LeaseManager}) against the CP {@link FencedLock} used directly ({@code lockAndGetFence} + {@code unlock} on
 * the calling thread); the provider is also measured through its SPI alone (acquire, release: no lease bookkeeping),
 * which tells its own share from {@code LeaseManager}'s. All ask for the lock's proxy on every operation and lock on the same member; each thread uses
 * resources of its own (cycling over 64), so the figures are of the CP group's round trips, not of contention. The
 * provider adds a thread per lease (the lock's owner) and the lease's bookkeeping.
 *
 * <pre>./mvnw -B -pl guard-hazelcast -am -Dbench=hazelcast -DskipTests verify</pre>
 *
 * <p>Settings: {@code -Dbench.rounds} (default 5), {@code -Dbench.seconds} per round (default 1.5),
 * {@code -Dbench.warmup} seconds (default 1.5).
 */
public final class HazelcastLeaseBenchmark {

    private static final String ANCHOR = "FencedLock, used directly";
    private static final String FENCEGUARD = "fenceguard HazelcastLeaseProvider";
    private static volatile long sink;

    private interface Round {
        void run(String resource) throws Exception;
    }

    public static void main(String[] args) {
        PairedLockBenchmark.runAndExit("Hazelcast lease benchmark", HazelcastLeaseBenchmark::measure);
    }

    private static boolean measure() throws Exception {
        int rounds = Integer.getInteger("bench.rounds", 5);
        double seconds = Double.parseDouble(System.getProperty("bench.seconds", "1.5"));
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
                    Map<String, double[]> rates = new LinkedHashMap<>();
                    for (Map.Entry<String, Round> implementation : implementations.entrySet()) {
                        run(implementation.getValue(), threads, warmup);
                    }
                    List<String> order = new ArrayList<>(implementations.keySet());
                    for (int round = 0; round < rounds; round++) {
                        // A rotating order, so that neither always runs first after the other.
                        for (int i = 0; i < order.size(); i++) {
                            String label = order.get((i + round) % order.size());
                            rates.computeIfAbsent(label, l -> new double[rounds])[round] =
                                    run(implementations.get(label), threads, seconds);
                        }
                    }
                    double anchor = median(rates.get(ANCHOR));
                    for (Map.Entry<String, double[]> rate : rates.entrySet()) {
                        double median = median(rate.getValue());
                        System.out.printf("%d thread%s  %-46s %10.0f ops/s  (rounds %s)  ratio to anchor %.2f%n",
                                threads, threads == 1 ? " " : "s", rate.getKey(), median, format(rate.getValue()),
                                median / anchor);
                        boolean isAnchor = rate.getKey().equals(ANCHOR);
                        BenchTable.row("hazelcast", rate.getKey() + ", acquire+release, " + threads + " thread(s)", median,
                                "ops/s", isAnchor ? "–" : ANCHOR, isAnchor ? Double.NaN : median / anchor, Double.NaN);
                    }
                }
            }
        }
        BenchTable.print();
        return true;
    }

    /** Operations per second of {@code threads} threads running {@code round} for {@code seconds}. */
    private static double run(Round round, int threads, double seconds) throws Exception {
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
        long start = System.nanoTime();
        workers.forEach(Thread::start);
        TimeUnit.MILLISECONDS.sleep((long) (seconds * 1000));
        stop.set(true);
        if (!done.await(30, TimeUnit.SECONDS) || failures.get() > 0) {
            throw new IllegalStateException("a benchmark thread failed or did not stop");
        }
        return operations.get() / ((System.nanoTime() - start) / 1e9);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static String format(double[] values) {
        StringBuilder text = new StringBuilder();
        for (double value : values) {
            text.append(text.length() == 0 ? "" : " ").append(String.format("%.0f", value));
        }
        return text.toString();
    }
}
