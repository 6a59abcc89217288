package io.fenceguard.test.contract;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.LeaseProvider;

class InMemoryLeaseProviderContractTest extends LeaseProviderContract {

    @Override
    protected LeaseProvider createProvider() {
        return InMemoryLeaseProvider.create();
    }

    /** Each in-memory provider is a store of its own. */
    @Override
    protected boolean storeOutlivesProvider() {
        return false;
    }
}
