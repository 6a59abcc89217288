package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.RedisSentinelGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The faults of the Sentinel failover tests: a replica cut off while its master goes on, and the clients' switch. */
final class SentinelFaults {

    private SentinelFaults() {
    }

    /**
     * Stops the group's replica (SIGSTOP) and cuts its link, runs {@code onTheMasterAlone}, kills the master and lets
     * the replica go on (SIGCONT), so that the failover promotes a replica without the writes made meanwhile.
     */
    static <T> T onTheMasterAloneThenKillIt(RedisSentinelGroup group, Supplier<T> onTheMasterAlone) {
        RedisProcess master = group.master();
        String replicaPid = processId(group.replica());
        signal("STOP", replicaPid);
        try {
            assertThat((Long) master.call("CLIENT", "KILL", "TYPE", "replica")).isGreaterThanOrEqualTo(1L);
            T result = onTheMasterAlone.get();
            master.kill();
            return result;
        } finally {
            signal("CONT", replicaPid);
        }
    }

    /** Retries while the client learns the new master: unavailability for up to 30 s. */
    static <T> T retrying(Supplier<T> call) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return call.get();
            } catch (LeaseUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(interrupted);
                }
            }
        }
    }

    private static String processId(RedisProcess server) {
        return String.valueOf(server.call("INFO", "server")).lines()
                .filter(l -> l.startsWith("process_id:"))
                .map(l -> l.substring("process_id:".length()).trim())
                .findFirst().orElseThrow();
    }

    private static void signal(String signal, String pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, pid).inheritIO().start();
            assertThat(kill.waitFor()).as("kill -%s %s", signal, pid).isZero();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
