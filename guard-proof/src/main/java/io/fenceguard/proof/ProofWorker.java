package io.fenceguard.proof;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker JVM of the harness: runs its clients against the run's servers and writes their history.
 * Started by {@link WorkerJvm}; the nemesis pauses it whole with SIGSTOP/SIGCONT, as a long GC
 * pause or a frozen VM would.
 *
 * <p>Arguments: topology file, worker name, number of client threads, history file.
 */
public final class ProofWorker {

    private ProofWorker() {
    }

    public static void main(String[] args) throws Exception {
        Quiet.logs();
        Topology topology = Topology.read(Path.of(args[0]));
        String name = args[1];
        int threads = Integer.parseInt(args[2]);
        try (ClientKit kit = new ClientKit(topology, name, threads);
             HistoryFile history = HistoryFile.create(Path.of(args[3]))) {
            Operations operations = new Operations(kit);
            List<Thread> running = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                ClientLoop loop = new ClientLoop(name + "." + i, operations, history, topology.seed(),
                        topology.deadlineMillis());
                Thread thread = new Thread(loop, loop.name());
                thread.start();
                running.add(thread);
            }
            for (Thread thread : running) {
                thread.join(Math.max(1, topology.deadlineMillis() - System.currentTimeMillis()) + 120_000);
            }
        }
        System.exit(0);
    }
}
