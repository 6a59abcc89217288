package io.fenceguard.jdbc;

import io.fenceguard.core.LeaseContext;
import java.util.Optional;

/** Where a connection finds the fence for the statement it is about to run. */
@FunctionalInterface
public interface FenceSource {

    Optional<Fence> current();

    /** The innermost lease bound with {@link LeaseContext}: the default. */
    static FenceSource leaseContext() {
        return () -> LeaseContext.current().map(Fence::of);
    }
}
