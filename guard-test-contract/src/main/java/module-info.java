/**
 * The contract suite every {@link io.fenceguard.core.spi.LeaseProvider} passes, for the tests of a store:
 * {@link io.fenceguard.test.contract.LeaseProviderContract} (exclusive leases, tokens, expiry, renewal),
 * {@link io.fenceguard.test.contract.ReadWriteLeaseProviderContract} (shared leases) and
 * {@link io.fenceguard.test.contract.ReleaseRequestContract} (release requests). A store's test class extends them,
 * so JUnit Jupiter's API and AssertJ come with this module.
 */
module io.fenceguard.test.contract {
    requires transitive io.fenceguard.core;
    requires transitive org.junit.jupiter.api;
    requires transitive org.assertj.core;

    exports io.fenceguard.test.contract;
}
