package io.fenceguard.test.support.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * A benchmark run's deadline: once started, a daemon thread stops the JVM with status {@value #STATUS} when it
 * passes, whatever the benchmark or its shutdown is doing, after printing why. The deadline may be moved while the
 * run goes on ({@link #moveTo}), as when it depends on what the run found out.
 */
public final class BenchDeadline {

    /** The JVM's exit status when the deadline passed. */
    public static final int STATUS = 3;

    /** When the JVM is stopped (nanoTime). */
    private volatile long at;
    private boolean started;

    private BenchDeadline(long at) {
        this.at = at;
    }

    /** A deadline {@code fromNow} from now, not started yet. */
    public static BenchDeadline after(Duration fromNow) {
        return new BenchDeadline(System.nanoTime() + fromNow.toNanos());
    }

    /** Moves the deadline to {@code fromNow} from now (a running wait ends at its old end first). */
    public void moveTo(Duration fromNow) {
        at = System.nanoTime() + fromNow.toNanos();
    }

    /**
     * Starts the daemon: when the deadline passed, it writes {@code format} with {@code args} (as
     * {@link PrintStream#printf}) to {@code out}, flushes it and halts the JVM with status {@value #STATUS}.
     */
    public BenchDeadline start(PrintStream out, String format, Object... args) {
        return start(out, status -> Runtime.getRuntime().halt(status), format, args);
    }

    /** As {@link #start(PrintStream, String, Object...)}, the JVM stopped by {@code halt}. */
    synchronized BenchDeadline start(PrintStream out, IntConsumer halt, String format, Object... args) {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(format, "format");
        if (started) {
            throw new IllegalStateException("deadline already started");
        }
        started = true;
        Thread thread = new Thread(() -> {
            try {
                for (long left; (left = at - System.nanoTime()) > 0; ) {
                    Thread.sleep(Math.max(1, left / 1_000_000));
                }
            } catch (InterruptedException e) {
                return;
            }
            out.printf(format, args);
            out.flush();
            halt.accept(STATUS);
        }, "bench-deadline");
        thread.setDaemon(true);
        thread.start();
        return this;
    }
}
