package io.fenceguard.jdbc;

import java.util.concurrent.Callable;

/**
 * The named escape for work that must write fenced tables without a lease: migrations, admin and
 * repair jobs. Inside, statements go to the database exactly as written, unfenced, even when a
 * lease is in context. Scoped to the calling thread.
 */
public final class Unfenced {

    private static final ThreadLocal<Integer> DEPTH = ThreadLocal.withInitial(() -> 0);

    private Unfenced() {
    }

    public static void run(Runnable work) {
        enter();
        try {
            work.run();
        } finally {
            exit();
        }
    }

    public static <T> T call(Callable<T> work) throws Exception {
        enter();
        try {
            return work.call();
        } finally {
            exit();
        }
    }

    /** Whether the calling thread is inside {@link #run} or {@link #call}. */
    public static boolean isActive() {
        return DEPTH.get() > 0;
    }

    private static void enter() {
        DEPTH.set(DEPTH.get() + 1);
    }

    private static void exit() {
        int depth = DEPTH.get() - 1;
        if (depth == 0) {
            DEPTH.remove();
        } else {
            DEPTH.set(depth);
        }
    }
}
