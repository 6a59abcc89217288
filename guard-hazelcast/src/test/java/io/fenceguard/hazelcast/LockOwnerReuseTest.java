package io.fenceguard.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.internal.datastructures.lock.Lock;
import com.hazelcast.cp.internal.datastructures.lock.LockService;
import com.hazelcast.cp.internal.datastructures.lock.proxy.AbstractFencedLockProxy;
import com.hazelcast.cp.internal.datastructures.spi.blocking.ResourceRegistry;
import com.hazelcast.cp.lock.FencedLock;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.test.support.HazelcastCpCluster;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A CP lock remembers the last unlock of every owner that gave it back, in the CP group's state, until that owner gives
 * it back again or its CP session ends (the member's, as long as it lives). The leases of a provider reuse the owner
 * ids of leases that gave their locks back, so a resource's lock does not remember one owner more for each lease ever
 * taken on it. Read from Hazelcast's own state of the lock (internal API, as {@link LockOwnerIds} uses it).
 */
class LockOwnerReuseTest {

    private static final int LEASES = 20;

    @Test
    void aLockTakenLeaseAfterLeaseRemembersNoOwnerPerLease() throws Exception {
        HazelcastCpCluster cluster = HazelcastCpCluster.shared();
        ResourceName resource = ResourceName.of("hz:owners:" + UUID.randomUUID());
        try (HazelcastLeaseProvider provider = HazelcastLeaseProvider.of(cluster.member(0))) {
            for (int i = 0; i < LEASES; i++) {
                LeaseRequest request = new LeaseRequest(resource, "holder-" + i, Duration.ofSeconds(30));
                Grant grant = provider.acquire(request, Duration.ofSeconds(10));
                assertThat(provider.release(request, grant)).isTrue();
            }
        }
        FencedLock lock = cluster.member(0).getCPSubsystem()
                .getLock(HazelcastLeaseConfig.DEFAULT_LOCK_NAME_PREFIX + resource.value());
        int remembered = 0;
        for (int m = 0; m < 3; m++) {
            remembered = Math.max(remembered, rememberedOwners(cluster.member(m), lock));
        }
        // One owner id serves every lease here; a few more only if other leases of this JVM ran meanwhile.
        assertThat(remembered).as("owners the CP lock remembers after %d leases", LEASES).isGreaterThan(0)
                .isLessThan(LEASES / 4);
    }

    /** The entries of the lock's memory of its owners' invocations, on one CP member's copy of its state. */
    private static int rememberedOwners(HazelcastInstance member, FencedLock lock) throws Exception {
        LockService service = ((HazelcastInstanceProxy) member).getOriginal().node.getNodeEngine()
                .getService(LockService.SERVICE_NAME);
        String objectName = ((AbstractFencedLockProxy) lock).getObjectName();
        Field remembered = Lock.class.getDeclaredField("ownerInvocationRefUids");
        remembered.setAccessible(true);
        for (int attempt = 0; ; attempt++) {
            try {
                // A copy, as for a snapshot; it may meet an entry being applied at the same moment.
                ResourceRegistry<?, ?> registry = service.takeSnapshot(lock.getGroupId(), 0);
                Lock state = (Lock) registry.getResourceOrNull(objectName);
                return state == null ? 0 : ((Map<?, ?>) remembered.get(state)).size();
            } catch (ConcurrentModificationException applying) {
                if (attempt == 100) {
                    throw applying;
                }
            }
        }
    }
}
