package io.fenceguard.docs.stores;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.test.contract.LeaseProviderContract;

/** The SPI sample of the lock-store guide passes the suite every store passes. */
class CountingLeaseProviderContractTest extends LeaseProviderContract {

    @Override
    protected LeaseProvider createProvider() {
        return new CountingLeaseProvider(InMemoryLeaseProvider.create());
    }

    /** Each in-memory provider is a store of its own. */
    @Override
    protected boolean storeOutlivesProvider() {
        return false;
    }
}
