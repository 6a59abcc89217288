package io.fenceguard.proof;

import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A client: operations on seeded-random resources until the run's deadline, each recorded. Bounded
 * in count as well as time, and paced by a short think time so the shared machine is not saturated.
 */
final class ClientLoop implements Runnable {

    static final int MAX_OPS = 200_000;

    private final String name;
    private final Operations operations;
    private final HistoryFile history;
    private final long seed;
    private final long deadlineMillis;
    private final AtomicReference<Pause> pauseRequest = new AtomicReference<>();

    ClientLoop(String name, Operations operations, HistoryFile history, long seed, long deadlineMillis) {
        this.name = name;
        this.operations = operations;
        this.history = history;
        this.seed = seed;
        this.deadlineMillis = deadlineMillis;
    }

    String name() {
        return name;
    }

    /** Asks this client to take {@code pause} in its next operation. */
    void requestPause(Pause pause) {
        pauseRequest.set(pause);
    }

    @Override
    public void run() {
        Random random = new Random(seed ^ name.hashCode());
        List<String> resources = Topology.allResources();
        for (int n = 0; n < MAX_OPS && System.currentTimeMillis() < deadlineMillis
                && !Thread.currentThread().isInterrupted(); n++) {
            String resource = resources.get(random.nextInt(resources.size()));
            Pause pause = pauseRequest.getAndSet(null);
            history.append(operations.run(name, name + "-" + n, resource, random, pause));
            try {
                Thread.sleep(10 + random.nextInt(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
