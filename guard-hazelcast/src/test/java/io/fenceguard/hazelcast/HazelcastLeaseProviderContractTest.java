package io.fenceguard.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.test.support.HazelcastCpCluster;
import io.fenceguard.test.contract.LeaseProviderContract;
import org.junit.jupiter.api.BeforeAll;

/**
 * The Hazelcast provider passes the contract every provider passes, on three embedded CP members. The read-write
 * contract does not apply: a FencedLock is exclusive only (Hazelcast's shared lock, the FencedReadWriteLock, is not
 * part of the CP Subsystem), so the provider grants exclusive leases and refuses shared ones, as the contract checks.
 */
class HazelcastLeaseProviderContractTest extends LeaseProviderContract {

    private static HazelcastInstance member;

    @BeforeAll
    static void cluster() {
        member = HazelcastCpCluster.shared().member(0);
    }

    @Override
    protected LeaseProvider createProvider() {
        return HazelcastLeaseProvider.of(member);
    }
}
