package io.fenceguard.zookeeper;

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
import java.time.Duration;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * What the ZooKeeper provider minted, read on the project's in-JVM ZooKeeper: every granted token is at most the
 * answer, a far-ahead mark is set back by {@link MarkHealing}, and an unreachable ensemble fails the call.
 */
class ZooKeeperIssuedTokensTest {

    @Test
    void grantedTokensAreAtMostTheAnswerAndAFarAheadMarkIsSetBack() throws Exception {
        ResourceName account = ResourceName.of("account:" + UUID.randomUUID());
        try (TestingServer server = ZooKeepers.server()) {
            CuratorFramework client = ZooKeepers.client(server.getConnectString());
            CuratorFramework other = ZooKeepers.client(server.getConnectString());
            ZooKeeperIssuedTokens issued = ZooKeeperIssuedTokens.of(client, ZooKeeperLeaseConfig.defaults());
            try (LeaseManager manager = LeaseManager.of(ZooKeeperLeaseProvider.of(other),
                    LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build())) {
                assertThat(issued.highestIssued(account)).as("no node of the resource yet").isEmpty();
                InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
                MarkHealing healing = MarkHealing.of(store, issued);
                try (Lease first = manager.acquire(account.value(), Duration.ofSeconds(5))) {
                    // granted through another client (another server session): read after a sync, never behind it
                    assertThat(issued.highestIssued(account).orElseThrow().value())
                            .isGreaterThanOrEqualTo(first.token().value());
                    store.admit(new Fence(account, first.token()));
                }
                // a token no holder was granted, far ahead of the ensemble's zxid
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
                assertThat(healing.healed()).isEqualTo(1);
            }
            other.close();
            client.close();
            ZooKeeperIssuedTokens closed = ZooKeeperIssuedTokens.of(client, ZooKeeperLeaseConfig.defaults());
            assertThatThrownBy(() -> closed.highestIssued(account)).as("a closed client fails; the refusal stands")
                    .isInstanceOf(RuntimeException.class);
        }
    }
}
