package io.fenceguard.jdbc.lease;

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the lease table minted, on PostgreSQL and MariaDB: every granted token is at most the answer (it is the row's
 * token), a far-ahead mark is set back by {@link MarkHealing}, and an unreachable database fails the call.
 */
class JdbcIssuedTokensTest {

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void theAnswerIsTheRowsTokenAndAFarAheadMarkIsSetBack(String kind) {
        try (ScratchDatabase db = ScratchDatabase.on(kind)) {
            ResourceName account = ResourceName.of("account:" + UUID.randomUUID());
            JdbcIssuedTokens issued = JdbcIssuedTokens.of(db.dataSource(), JdbcLeaseConfig.defaults());
            InMemoryHighWaterStore store = InMemoryHighWaterStore.create();
            MarkHealing healing = MarkHealing.of(store, issued);
            assertThat(issued.highestIssued(account)).as("never granted: no row").isEmpty();
            try (LeaseManager manager = LeaseManager.of(JdbcLeaseProvider.of(db.dataSource()),
                    LeaseConfig.builder().leaseTime(Duration.ofSeconds(10)).build())) {
                try (Lease first = manager.acquire(account.value(), Duration.ofSeconds(5))) {
                    assertThat(issued.highestIssued(account)).contains(first.token());
                    store.admit(new Fence(account, first.token()));
                }
                assertThat(issued.highestIssued(account)).as("the row outlives the release").isPresent();
                FencingToken farAhead = FencingToken.of(1_000_000);
                assertThat(store.admit(new Fence(account, farAhead)).admitted()).isTrue();
                try (Lease second = manager.acquire(account.value(), Duration.ofSeconds(5))) {
                    assertThat(issued.highestIssued(account)).contains(second.token());
                    Admission refused = store.admit(new Fence(account, second.token()));
                    assertThat(refused.admitted()).as("locked out by the far-ahead mark").isFalse();
                    Admission healed = healing.heal(refused);
                    assertThat(healed.admitted()).isTrue();
                    assertThat(healed.highWater()).isEqualTo(second.token());
                }
            }
            assertThat(healing.healed()).isEqualTo(1);
            try (var nowhere = (com.zaxxer.hikari.HikariDataSource) db.unreachable()) {
                assertThatThrownBy(() -> JdbcIssuedTokens.of(nowhere, JdbcLeaseConfig.defaults()).highestIssued(account))
                        .as("an unreachable database fails; the refusal stands").isInstanceOf(IllegalStateException.class);
            }
        }
    }
}
