package io.fenceguard.jdbc;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;

/**
 * Plays a holder in tests: binds a presented fence in {@link LeaseContext} for the work. An old holder
 * here is one whose process still believes in its lease: exactly the case the database check exists for.
 */
public final class TestFence {

    private TestFence() {
    }

    public static <T> T as(String resource, long token, SqlWork<T> work) throws Exception {
        return as(Fence.of(resource, Long.toString(token)), work);
    }

    public static <T> T as(Fence fence, SqlWork<T> work) throws Exception {
        return as(Lease.presented(fence, "test"), work);
    }

    /** Runs {@code work} with {@code lease} bound, as any fenced caller does. */
    public static <T> T as(Lease lease, SqlWork<T> work) throws Exception {
        try (LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            return work.run();
        }
    }

    @FunctionalInterface
    public interface SqlWork<T> {
        T run() throws Exception;
    }
}
