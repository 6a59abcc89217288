package io.fenceguard.proof;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One run: start the servers, the resource server, two worker JVMs, this JVM's clients and the
 * nemesis; stop starting operations at the deadline; heal; collect the histories and the database
 * state; check. Fencing on uses fenceguard leases (on Redis or etcd), fenceguard-jdbc and fenceguard-http-filter;
 * fencing off uses the store's own lock (Redisson's fenced lock, etcd's lock service), the raw pools and no
 * filter, with the same workload and nemesis seed.
 */
final class ProofRun {

    /** What a run saw. */
    record Result(boolean fencing, ProofSettings settings, long startMillis, long endMillis, List<Op> history,
            List<FaultEvent> faults, HistoryChecker.Findings findings, Path dir) {
    }

    private ProofRun() {
    }

    static Result run(ProofSettings settings, boolean fencing) throws Exception {
        return run(settings, fencing, Nemesis.MIXED, settings.outDir());
    }

    /** A run whose nemesis deals only {@code faults}, with its outputs under {@code outDir}. */
    static Result run(ProofSettings settings, boolean fencing, List<List<Nemesis.Kind>> faults, Path outDir)
            throws Exception {
        return run(settings, fencing, Topology.REDIS, faults, outDir);
    }

    /** A run whose locks are on {@code store} ({@link Topology#REDIS} or {@link Topology#ETCD}). */
    static Result run(ProofSettings settings, boolean fencing, String store, List<List<Nemesis.Kind>> faults,
            Path outDir) throws Exception {
        String runId = (fencing ? "on" : "off") + "-" + UUID.randomUUID().toString().substring(0, 6);
        Path dir = outDir.resolve(fencing ? "fencing-on" : "fencing-off");
        Files.createDirectories(dir);
        Quiet.logs();
        try (ProofServers servers = new ProofServers(runId, store)) {
            Map<String, HikariDataSource> pools = new LinkedHashMap<>();
            try {
                int count = servers.databases().size();
                for (int index = 0; index < count; index++) {
                    Topology.Database db = servers.databases().get(index);
                    HikariDataSource pool = ClientKit.pool(db, 20);
                    pools.put(db.name(), pool);
                    int here = index;
                    ProofSchema.create(pool, db, Topology.allResources().stream()
                            .filter(r -> Topology.databaseIndexOf(r, count) == here).toList());
                }
                try (ResourceServer resourceServer = ResourceServer.start(pools.values().iterator().next(), fencing);
                     HttpFaultProxy http = HttpFaultProxy.start(resourceServer.port())) {
                    long start = System.currentTimeMillis();
                    Topology topology = new Topology(fencing, runId, settings.seed(), settings.leaseMillis(),
                            servers.redisUris(), servers.sentinelUris(), store, servers.etcdEndpoints(),
                            servers.databases(), http.port(),
                            start + settings.duration().toMillis());
                    Path topologyFile = dir.resolve("topology.json");
                    topology.write(topologyFile);
                    List<Op> history = new ArrayList<>();
                    List<FaultEvent> events = drive(settings, topology, topologyFile, servers, http, dir, history, faults);
                    List<ProofSchema.State> states = new ArrayList<>();
                    for (HikariDataSource pool : pools.values()) {
                        states.add(ProofSchema.read(pool));
                    }
                    HistoryChecker.Findings findings = HistoryChecker.check(history, ProofSchema.merge(states));
                    return new Result(fencing, settings, start, System.currentTimeMillis(), history, events, findings, dir);
                }
            } finally {
                pools.values().forEach(HikariDataSource::close);
            }
        }
    }

    private static List<FaultEvent> drive(ProofSettings settings, Topology topology, Path topologyFile,
            ProofServers servers, HttpFaultProxy http, Path dir, List<Op> history, List<List<Nemesis.Kind>> faults)
            throws Exception {
        List<WorkerJvm> workers = new ArrayList<>();
        Path mainHistory = dir.resolve("history-main.jsonl");
        try (ClientKit kit = new ClientKit(topology, "main", settings.inProcessThreads());
             HistoryFile file = HistoryFile.create(mainHistory)) {
            for (String worker : Topology.processes().subList(1, Topology.processes().size())) {
                workers.add(WorkerJvm.start(worker, topologyFile, settings.threadsPerWorker(), dir));
            }
            Operations operations = new Operations(kit);
            List<ClientLoop> loops = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < settings.inProcessThreads(); i++) {
                ClientLoop loop = new ClientLoop("main." + i, operations, file, topology.seed(), topology.deadlineMillis());
                loops.add(loop);
                threads.add(new Thread(loop, loop.name()));
            }
            Nemesis nemesis = new Nemesis(servers, http, loops, workers, topology.seed(), topology.leaseMillis(),
                    topology.deadlineMillis(), faults);
            Thread nemesisThread = new Thread(nemesis, "nemesis");
            threads.forEach(Thread::start);
            nemesisThread.start();
            long bound = topology.deadlineMillis() - System.currentTimeMillis() + 90_000;
            nemesisThread.join(Math.max(1, bound));
            nemesisThread.interrupt();
            nemesis.healAll();
            for (Thread thread : threads) {
                thread.join(Math.max(1, topology.deadlineMillis() - System.currentTimeMillis() + 60_000));
                thread.interrupt();
            }
            for (WorkerJvm worker : workers) {
                if (!worker.awaitExit(90)) {
                    System.err.println("worker " + worker.name() + " did not finish in time; killed");
                }
            }
            history.addAll(HistoryFile.read(mainHistory));
            for (WorkerJvm worker : workers) {
                history.addAll(HistoryFile.read(worker.history()));
            }
            return nemesis.events();
        } finally {
            workers.forEach(WorkerJvm::close);
        }
    }
}
