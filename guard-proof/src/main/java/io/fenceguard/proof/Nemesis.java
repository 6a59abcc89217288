package io.fenceguard.proof;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * Injects one fault at a time, chosen and timed by a seeded random, until the deadline; each is
 * recorded with when it began and was healed. The same seed gives the same sequence of faults, so
 * the runs with and without fencing face the same schedule.
 */
final class Nemesis implements Runnable {

    enum Kind { PAUSE_THREAD, PAUSE_JVM, FLUSHALL, KILL_RESTART, FAILOVER, LATENCY, DROP_CONNECTIONS,
        CLOCK_FORWARD, CLOCK_BACK, POSTGRES_RESTART, HTTP_HOLD, HTTP_LOSE_ANSWER, ETCD_LEADER_KILL, ETCD_PARTITION }

    private final ProofServers servers;
    private final HttpFaultProxy http;
    private final List<ClientLoop> threads;
    private final List<WorkerJvm> workers;
    private final Random random;
    private final long leaseMillis;
    private final long deadlineMillis;
    private final List<FaultEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final List<List<Kind>> faults;
    private final List<List<Kind>> deck = new ArrayList<>();

    /**
     * Faults are dealt from a shuffled deck, so that every kind occurs in every run of nine faults or
     * more; pauses, the faults fencing exists for, twice.
     */
    static final List<List<Kind>> MIXED = Stream.of(Kind.PAUSE_THREAD, Kind.PAUSE_JVM, Kind.FLUSHALL, Kind.PAUSE_THREAD,
            Kind.KILL_RESTART, Kind.PAUSE_JVM, Kind.FAILOVER, Kind.LATENCY, Kind.DROP_CONNECTIONS).map(List::of).toList();

    Nemesis(ProofServers servers, HttpFaultProxy http, List<ClientLoop> threads, List<WorkerJvm> workers, long seed,
            long leaseMillis, long deadlineMillis) {
        this(servers, http, threads, workers, seed, leaseMillis, deadlineMillis, MIXED);
    }

    /**
     * A nemesis that deals {@code faults}: each entry is one fault, or several injected at once (each on
     * a thread of its own, the entry ending when all are healed).
     */
    Nemesis(ProofServers servers, HttpFaultProxy http, List<ClientLoop> threads, List<WorkerJvm> workers, long seed,
            long leaseMillis, long deadlineMillis, List<List<Kind>> faults) {
        this.faults = List.copyOf(faults);
        this.servers = servers;
        this.http = http;
        this.threads = threads;
        this.workers = workers;
        this.random = new Random(seed);
        this.leaseMillis = leaseMillis;
        this.deadlineMillis = deadlineMillis;
    }

    List<FaultEvent> events() {
        return List.copyOf(events);
    }

    @Override
    public void run() {
        ProofServers.sleep(2_000);  // let every client start first
        for (int n = 0; n < 10_000 && System.currentTimeMillis() < deadlineMillis - 3_000
                && !Thread.currentThread().isInterrupted(); n++) {
            if (deck.isEmpty()) {
                deck.addAll(faults);
                Collections.shuffle(deck, random);
            }
            List<Kind> kinds = deck.remove(deck.size() - 1);
            if (kinds.size() == 1) {
                injectAndRecord(kinds.get(0), leaseMillis * 3 / 2 + random.nextInt((int) leaseMillis));
            } else {
                List<Thread> together = new ArrayList<>();
                for (Kind kind : kinds) {
                    long pause = leaseMillis * 3 / 2 + random.nextInt((int) leaseMillis);
                    together.add(new Thread(() -> injectAndRecord(kind, pause), "nemesis-" + kind));
                }
                together.forEach(Thread::start);
                for (Thread t : together) {
                    try {
                        t.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
            ProofServers.sleep(1_000 + random.nextInt(2_000));
        }
    }

    private void injectAndRecord(Kind kind, long pause) {
        long start = System.currentTimeMillis();
        String target;
        try {
            target = inject(kind, pause);
        } catch (RuntimeException e) {
            target = "failed: " + e.getMessage();
        }
        events.add(new FaultEvent(kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'), target,
                start, System.currentTimeMillis()));
    }

    private String inject(Kind kind, long pause) {
        switch (kind) {
            case PAUSE_THREAD -> {
                ClientLoop client = threads.get(random.nextInt(threads.size()));
                boolean beforeRead = random.nextInt(3) == 0;   // mostly between read and write: lost updates
                boolean pastCheck = random.nextBoolean();
                client.requestPause(new Pause(pause, beforeRead, pastCheck));
                ProofServers.sleep(pause);
                return client.name() + (beforeRead ? " before read" : " before write")
                        + (pastCheck ? ", past the local check" : "");
            }
            case PAUSE_JVM -> {
                WorkerJvm worker = workers.get(random.nextInt(workers.size()));
                worker.stop();
                ProofServers.sleep(pause);
                worker.resume();
                return worker.name();
            }
            case FLUSHALL -> {
                boolean onSingle = random.nextBoolean();
                (onSingle ? servers.single() : servers.sentinelMaster()).flushAll();
                return onSingle ? "single" : "sentinel";
            }
            case KILL_RESTART -> {
                long down = 300 + random.nextInt(1_500);
                servers.single().kill();
                ProofServers.sleep(down);
                servers.single().restart();
                return "single, down " + down + " ms";
            }
            case FAILOVER -> {
                servers.failover();
                return "sentinel";
            }
            case LATENCY -> {
                // One client process's link: its requests reach Redis at once, the answers come later than
                // a lease (within the client's 3 s command timeout), so a grant arrives after it ran out.
                List<String> processes = List.copyOf(servers.proxies().keySet());
                String process = processes.get(random.nextInt(processes.size()));
                long late = leaseMillis * 11 / 10 + random.nextInt((int) leaseMillis / 2);
                long lasting = 1_500 + random.nextInt(2_500);
                servers.proxies().get(process).delay(Duration.ZERO, Duration.ofMillis(late));
                ProofServers.sleep(lasting);
                servers.proxies().get(process).delay(Duration.ZERO, Duration.ZERO);
                return process + " to single, answers +" + late + " ms for " + lasting + " ms";
            }
            case DROP_CONNECTIONS -> {
                int dropped = 0;
                for (var proxy : servers.proxies().values()) {
                    dropped += proxy.dropConnections();
                }
                return "single, " + dropped + " sockets";
            }
            case HTTP_HOLD -> {
                // Requests held past the clients' answer timeout (3 leases) and then delivered: their senders
                // gave up and released meanwhile, and the next holder may have written.
                long hold = leaseMillis * 4 + random.nextInt((int) leaseMillis * 2);
                long lasting = 1_500 + random.nextInt(2_500);
                http.hold(hold);
                ProofServers.sleep(lasting);
                http.hold(0);
                return "resource server, requests held " + hold + " ms for " + lasting + " ms";
            }
            case HTTP_LOSE_ANSWER -> {
                long lasting = 1_500 + random.nextInt(2_500);
                http.loseWriteAnswers(true);
                ProofServers.sleep(lasting);
                http.loseWriteAnswers(false);
                return "resource server, write answers lost (502) for " + lasting + " ms";
            }
            case CLOCK_FORWARD -> {
                // Each step goes past every live lease: Redis expires them at once while their holders
                // still count on them. Three steps, then back to the real time.
                long step = leaseMillis * 2 + random.nextInt((int) leaseMillis * 2);
                for (int i = 0; i < 3; i++) {
                    servers.stepClock(Duration.ofMillis(step));
                    ProofServers.sleep(pause / 3);
                }
                servers.stepClock(Duration.ofMillis(-3 * step));
                return "single, 3 x +" + step + " ms, back after " + pause + " ms";
            }
            case CLOCK_BACK -> {
                // Live locks live longer by the step; the counter keeps tokens growing meanwhile.
                long step = leaseMillis * 2 + random.nextInt((int) leaseMillis * 2);
                servers.stepClock(Duration.ofMillis(-step));
                ProofServers.sleep(pause);
                servers.stepClock(Duration.ofMillis(step));
                return "single, -" + step + " ms, forward again after " + pause + " ms";
            }
            case POSTGRES_RESTART -> {
                // Down about as long as a lease: holders blocked on the database outlive an unrenewed lock.
                long down = leaseMillis / 2 + random.nextInt((int) leaseMillis * 3 / 2);
                servers.restartPostgres(down);
                return "postgresql, down " + down + " ms";
            }
            case ETCD_LEADER_KILL -> {
                // SIGKILL of the leader: the others elect a new one (1 s election timeout) while clients retry
                // on the members left; the killed member starts again on its data and rejoins as a follower.
                EtcdServers etcd = servers.etcd();
                int leader = etcd.leader();
                long down = leaseMillis + random.nextInt((int) leaseMillis * 2);
                etcd.kill(leader);
                ProofServers.sleep(down);
                etcd.restart(leader);
                return "etcd leader " + etcd.name(leader) + ", down " + down + " ms";
            }
            case ETCD_PARTITION -> {
                // One client process (its clients hold locks nearly all the time) cut off from every member: what
                // it sends and what it is answered is held for longer than a lease and delivered after, as TCP
                // delivers what it retransmitted once a partition heals. Its keep-alives do not reach etcd, which
                // ends its leases and gives its locks to the others; the database stays reachable.
                EtcdServers etcd = servers.etcd();
                List<String> processes = etcd.processes();
                String process = processes.get(random.nextInt(processes.size()));
                long cut = leaseMillis * 3 / 2 + random.nextInt((int) leaseMillis);
                for (var link : etcd.linksOf(process)) {
                    link.delay(Duration.ofMillis(cut), Duration.ofMillis(cut));
                }
                ProofServers.sleep(cut);
                for (var link : etcd.linksOf(process)) {
                    link.delay(Duration.ZERO, Duration.ZERO);
                }
                return process + " cut off from etcd for " + cut + " ms";
            }
            default -> throw new IllegalStateException("unknown fault " + kind);
        }
    }

    /** Resumes stopped workers and restores the servers, whatever was in progress. */
    void healAll() {
        workers.forEach(WorkerJvm::resume);
        http.heal();
        servers.heal();
    }
}
