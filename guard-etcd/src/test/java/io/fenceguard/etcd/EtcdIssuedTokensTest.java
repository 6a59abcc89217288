package io.fenceguard.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import io.fenceguard.admission.Admission;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.MarkHealing;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What the etcd provider minted, read from a real three-member cluster: every granted token is at most the answer, a
 * far-ahead mark is set back by {@link MarkHealing}, and an unreachable cluster fails the call.
 */
class EtcdIssuedTokensTest {

    @Test
    void grantedTokensAreAtMostTheAnswerAndAFarAheadMarkIsSetBack() {
        Client client = EtcdCluster.sharedClient();
        ResourceName account = ResourceName.of("account:" + UUID.randomUUID());
        EtcdIssuedTokens issued = EtcdIssuedTokens.of(client, EtcdCluster.CONFIG);
        InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
        MarkHealing healing = MarkHealing.of(store, issued);
        try (LeaseManager manager = LeaseManager.of(EtcdLeaseProvider.of(client, EtcdCluster.CONFIG),
                LeaseConfig.builder().leaseTime(Duration.ofSeconds(10)).build())) {
            try (Lease first = manager.acquire(account.value(), Duration.ofSeconds(5))) {
                assertThat(issued.highestIssued(account).orElseThrow().value()).isGreaterThanOrEqualTo(first.token().value());
                store.admit(new Fence(account, first.token()));
            }
            // after the release: the resource has no key, and the answer still bounds what was granted
            FencingToken afterRelease = issued.highestIssued(account).orElseThrow();
            FencingToken farAhead = FencingToken.of(Long.MAX_VALUE / 2);
            assertThat(store.admit(new Fence(account, farAhead)).admitted()).isTrue();
            try (Lease second = manager.acquire(account.value(), Duration.ofSeconds(5))) {
                assertThat(second.token().isNewerThan(afterRelease)).as("a later grant is a later revision").isTrue();
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

        EtcdLeaseConfig quick = new EtcdLeaseConfig(EtcdLeaseConfig.DEFAULT_KEY_PREFIX, Duration.ofMillis(500));
        try (Client nowhere = Client.builder().endpoints("http://127.0.0.1:1").build()) {
            assertThatThrownBy(() -> EtcdIssuedTokens.of(nowhere, quick).highestIssued(account))
                    .as("an unreachable cluster fails; the refusal stands").isInstanceOf(IllegalStateException.class);
        }
    }
}
