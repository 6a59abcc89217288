package io.fenceguard.test.support.faults;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.test.contract.LeaseProviderContract;

/** Without a pause the wrapper is the provider it wraps: it passes the same contract. */
class PausableLeaseProviderContractTest extends LeaseProviderContract {

    @Override
    protected LeaseProvider createProvider() {
        return PausableLeaseProvider.wrap(InMemoryLeaseProvider.create());
    }

    /** Each in-memory provider is a store of its own. */
    @Override
    protected boolean storeOutlivesProvider() {
        return false;
    }
}
