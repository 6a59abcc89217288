package io.fenceguard.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.MarkHealing;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.test.support.HazelcastCpCluster;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What the Hazelcast provider minted, read from the project's in-JVM CP cluster: a fence granted on any member is at
 * most the answer, a far-ahead mark is set back by {@link MarkHealing}, and a shut-down instance fails the call.
 */
class HazelcastIssuedTokensTest {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(10)).build();

    @Test
    void grantedFencesAreAtMostTheAnswerAndAFarAheadMarkIsSetBack() {
        HazelcastCpCluster cluster = HazelcastCpCluster.shared();
        ResourceName account = ResourceName.of("hz:issued:" + UUID.randomUUID());
        HazelcastIssuedTokens issued = HazelcastIssuedTokens.of(cluster.member(2), HazelcastLeaseConfig.defaults());
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        MarkHealing healing = MarkHealing.of(store, issued);
        try (HazelcastLeaseProvider provider = HazelcastLeaseProvider.of(cluster.member(0));
             LeaseManager manager = LeaseManager.of(provider, LEASE)) {
            try (Lease first = manager.acquire(account.value(), Duration.ofSeconds(5))) {
                assertThat(issued.highestIssued(account).orElseThrow().value()).isGreaterThanOrEqualTo(first.token().value());
                store.admit(new Fence(account, first.token()));
            }
            FencingToken farAhead = FencingToken.of(Long.MAX_VALUE / 2);
            assertThat(store.admit(new Fence(account, farAhead)).admitted()).isTrue();
            try (Lease second = manager.acquire(account.value(), Duration.ofSeconds(5))) {
                FencingToken answer = issued.highestIssued(account).orElseThrow();
                assertThat(answer.value()).isGreaterThanOrEqualTo(second.token().value());
                assertThat(farAhead.isNewerThan(answer)).isTrue();
                Admission refused = store.admit(new Fence(account, second.token()));
                assertThat(refused.admitted()).as("locked out by the far-ahead mark").isFalse();
                Admission healed = healing.heal(refused);
                assertThat(healed.admitted()).isTrue();
                assertThat(healed.highWater()).isEqualTo(second.token());
            }
        }
        assertThat(healing.healed()).isEqualTo(1);
    }

    @Test
    void aShutDownInstanceFails() {
        com.hazelcast.config.Config config = new com.hazelcast.config.Config();
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.setClusterName("issued-" + UUID.randomUUID());
        var lone = com.hazelcast.core.Hazelcast.newHazelcastInstance(config);
        lone.shutdown();
        HazelcastIssuedTokens issued = HazelcastIssuedTokens.of(lone, new HazelcastLeaseConfig(
                HazelcastLeaseConfig.DEFAULT_LOCK_NAME_PREFIX, HazelcastLeaseConfig.DEFAULT_CP_GROUP, Duration.ofSeconds(2)));
        assertThatThrownBy(() -> issued.highestIssued(ResourceName.of("hz:gone")))
                .as("the refusal stands").isInstanceOf(IllegalStateException.class);
    }
}
