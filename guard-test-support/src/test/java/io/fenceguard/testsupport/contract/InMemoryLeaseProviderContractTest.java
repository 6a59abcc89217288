package io.fenceguard.testsupport.contract;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.LeaseProvider;

class InMemoryLeaseProviderContractTest extends LeaseProviderContract {

    @Override
    protected LeaseProvider createProvider() {
        return InMemoryLeaseProvider.create();
    }
}
