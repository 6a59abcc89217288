/**
 * The API of fenceguard without dependencies: leases, fencing tokens, the lease context, the LeaseProvider SPI
 * and an in-memory provider. {@code io.fenceguard.core.internal} is not exported: it is not API.
 */
module io.fenceguard.core {
    exports io.fenceguard.core;
    exports io.fenceguard.core.annotation;
    exports io.fenceguard.core.memory;
    exports io.fenceguard.core.spi;
}
