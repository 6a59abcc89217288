package io.fenceguard.shedlock;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;

/** The contract on the in-memory provider: one store, a manager per simulated instance. */
class InMemoryLockProviderTest extends LockProviderContract {

    // A field, not a @BeforeEach: the contract's @BeforeEach asks for managers before a subclass's would run.
    private final InMemoryLeaseProvider store = InMemoryLeaseProvider.create();

    @Override
    protected LeaseManager newManager() {
        return LeaseManager.of(store, LEASE);
    }
}
