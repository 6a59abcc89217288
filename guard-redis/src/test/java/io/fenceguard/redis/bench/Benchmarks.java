package io.fenceguard.redis.bench;

import io.fenceguard.test.support.RespClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import org.redisson.Redisson;

/** What the Redis benchmarks share: how they end, the machine line, percentiles. */
final class Benchmarks {

    private Benchmarks() {
    }

    /**
     * Runs a benchmark's {@code main} and ends the JVM: status 0 when {@code body} measured everything,
     * 1 when a part failed or it threw. Ending explicitly keeps a thread stuck in a failed run (a lock
     * call that never returns, a client that did not shut down) from holding up the build; a run still
     * going after {@code -Dbench.timeout-s} (default 900) is ended with status 2.
     */
    static void runAndExit(String name, Callable<Boolean> body) {
        long timeoutSeconds = Long.getLong("bench.timeout-s", 900);
        Thread timeout = new Thread(() -> {
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(timeoutSeconds));
                System.out.println(name + " FAILED: still running after " + timeoutSeconds + " s (-Dbench.timeout-s); "
                        + "ending it");
                System.out.flush();
                Runtime.getRuntime().halt(2);
            } catch (InterruptedException ignored) {
                // ended in time
            }
        }, name + "-timeout");
        timeout.setDaemon(true);
        timeout.start();
        boolean complete;
        try {
            complete = body.call();
            if (!complete) {
                System.out.println(name + ": some measurements FAILED (see above); their rows are marked");
            }
            io.fenceguard.test.support.bench.BenchTable.print();
        } catch (Throwable e) {
            System.out.println(name + " FAILED: " + e);
            e.printStackTrace(System.out);
            complete = false;
        }
        System.out.flush();
        System.exit(complete ? 0 : 1);
    }

    /** The failure behind a task's {@link ExecutionException}. */
    static Throwable cause(Throwable e) {
        return e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    }

    /** A failure in one line for the tables: its type and the start of its message. */
    static String brief(Throwable e) {
        if (e == null) {
            return "not measured";
        }
        String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
        String text = e.getClass().getSimpleName() + ": " + message;
        return text.length() > 160 ? text.substring(0, 157) + "..." : text;
    }

    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    static String machineLine(String url) {
        String redisVersion = "?";
        try {
            URI uri = URI.create(url);
            try (RespClient client = new RespClient(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379)) {
                redisVersion = String.valueOf(client.call("INFO", "server")).lines()
                        .filter(l -> l.startsWith("redis_version:")).map(l -> l.substring(14).trim())
                        .findFirst().orElse("?");
            }
        } catch (RuntimeException e) {
            redisVersion = "? (" + e.getMessage() + ")";
        }
        return String.format("machine: %s %s %s, %d cpus, %s %s | Redis %s at %s | Redisson %s",
                System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), redisVersion, url, redissonVersion());
    }

    private static String redissonVersion() {
        try (InputStream in = Redisson.class.getResourceAsStream("/META-INF/maven/org.redisson/redisson/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "?");
            }
        } catch (IOException ignored) {
            // fall through
        }
        String v = Redisson.class.getPackage().getImplementationVersion();
        return v != null ? v : "?";
    }
}
