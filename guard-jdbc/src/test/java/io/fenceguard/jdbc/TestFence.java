package io.fenceguard.jdbc;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.ResourceName;
import java.util.Optional;

/**
 * Plays a holder in tests: a fence bound to the thread, else the lease in {@link LeaseContext}.
 * An old holder here is one whose process still believes in its lease: exactly the case the
 * database check exists for.
 */
public final class TestFence {

    private static final ThreadLocal<Fence> CURRENT = new ThreadLocal<>();

    private TestFence() {
    }

    public static FenceSource source() {
        return () -> Optional.ofNullable(CURRENT.get()).or(() -> LeaseContext.current().map(Fence::of));
    }

    public static <T> T as(String resource, long token, SqlWork<T> work) throws Exception {
        return as(Fence.of(ResourceName.of(resource), FencingToken.of(token)), work);
    }

    public static <T> T as(Fence fence, SqlWork<T> work) throws Exception {
        Fence before = CURRENT.get();
        CURRENT.set(fence);
        try {
            return work.run();
        } finally {
            if (before == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(before);
            }
        }
    }

    @FunctionalInterface
    public interface SqlWork<T> {
        T run() throws Exception;
    }
}
