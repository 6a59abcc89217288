package io.fenceguard.spring.boot.autoconfigure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.admission.Verdict;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpAutoConfiguration;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageRefusedException;
import io.fenceguard.redis.JdbcTokenEpochSource;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * Tokens on the durable epoch, the starter's default with a DataSource, are admitted over HTTP (the fencing filter's
 * InboundFence) and by message admission although they run far ahead of the clock, and a stale or never-issued one is
 * still refused. Real epoch tokens: the auto-configured RedisLeaseProvider on Redis with its sequence in PostgreSQL.
 */
class EpochTokenAdmissionTest {

    private static final String KEY = "dGVzdC1rZXktQS0wMTIzNDU2Nzg5MDEyMzQ1Njc4OTAx";
    /** Epochs ahead of the clock, as after this many lost counters: about 23 hours of the clock floor. */
    private static final long EPOCHS_AHEAD = 5_000;

    private static final RedissonClient redisson = TestRedisson.shared();

    private ScratchSpace space;
    private PGSimpleDataSource dataSource;

    @BeforeEach
    void database() throws Exception {
        space = ScratchSpace.create(TestServers.postgres(), "fg_boot_epoch");
        dataSource = new PGSimpleDataSource();
        dataSource.setURL(space.jdbcUrl());
        dataSource.setUser(space.server().user());
        dataSource.setPassword(space.server().password());
        dataSource.setCurrentSchema(space.schema());
        long clockEpoch = System.currentTimeMillis() * 1000 / (1L << TokenBound.EPOCH_COUNTER_BITS);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE SEQUENCE " + space.schema() + "." + JdbcTokenEpochSource.DEFAULT_SEQUENCE
                    + " START WITH " + (clockEpoch + EPOCHS_AHEAD));
        }
    }

    @AfterEach
    void drop() {
        space.close();
    }

    private WebApplicationContextRunner runner() {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FenceguardRedisAutoConfiguration.class,
                        FenceguardLeaseAutoConfiguration.class, FenceguardHttpAutoConfiguration.class))
                .withBean(RedissonClient.class, () -> redisson)
                .withBean(DataSource.class, () -> dataSource)
                .withPropertyValues("fenceguard.redis.key-prefix=fgadmit" + System.nanoTime() + ":",
                        "fenceguard.http.signing.keys.k1=" + KEY,
                        // The bound is what this test is about: headers signed alone (compact) keep it to that.
                        "fenceguard.http.signing.mode=compact",
                        "fenceguard.http.server.routes[0].path=/accounts/{id}",
                        "fenceguard.http.server.routes[0].methods=PUT",
                        "fenceguard.http.server.routes[0].resource=account:{id}");
    }

    @Test
    void epochTokensAreAdmittedOverHttpAndFromMessagesAndStaleOrNeverIssuedOnesAreRefused() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            RedisLeaseProvider provider = context.getBean(RedisLeaseProvider.class);
            assertThat(provider.config().tokenEpochSource()).as("the default with a DataSource")
                    .isInstanceOf(JdbcTokenEpochSource.class);
            LeaseManager leases = context.getBean(LeaseManager.class);
            InboundFence http = context.getBean(InboundFence.class);
            SigningKeys keys = context.getBean(SigningKeys.class);
            // As the messaging auto-configuration builds it: the store and the bound shared with HTTP admission.
            MessageAdmission messages = MessageAdmission.of(context.getBean(HighWaterStore.class))
                    .withTokenBound(context.getBean(TokenBound.class));
            assertThat(context.getBean(TokenBound.class).toString()).contains("epoch");

            FencingToken older;
            FencingToken newer;
            try (Lease lease = leases.acquire("account:1", Duration.ofSeconds(2))) {
                older = lease.token();
            }
            try (Lease lease = leases.acquire("account:1", Duration.ofSeconds(2))) {
                newer = lease.token();
            }
            long clockFloorNow = System.currentTimeMillis() * 1000;
            assertThat(newer.value()).as("epoch tokens run ahead of the clock")
                    .isGreaterThan(clockFloorNow + Duration.ofHours(20).toNanos() / 1000);
            assertThat(TokenBound.clockFloor().allows(newer)).as("the clock floor would refuse this holder").isFalse();

            Verdict admitted = http.check("PUT", "/accounts/1", List.of(header(keys, "account:1", newer)));
            assertThat(admitted.admission()).as(String.valueOf(admitted)).isPresent();
            Verdict stale = http.check("PUT", "/accounts/1", List.of(header(keys, "account:1", older)));
            assertThat(stale.problem()).isPresent();
            assertThat(stale.problem().get().type()).endsWith("stale-token");

            FencingToken neverIssued = FencingToken.of(
                    (provider.config().tokenEpochSource().highestEpoch() + 1_000) << TokenBound.EPOCH_COUNTER_BITS);
            Verdict forged = http.check("PUT", "/accounts/1", List.of(header(keys, "account:1", neverIssued)));
            assertThat(forged.problem()).isPresent();
            assertThat(forged.problem().get().type()).endsWith("token-out-of-range");

            FencingToken olderMessage;
            FencingToken newerMessage;
            try (Lease lease = leases.acquire("account:2", Duration.ofSeconds(2))) {
                olderMessage = lease.token();
            }
            try (Lease lease = leases.acquire("account:2", Duration.ofSeconds(2))) {
                newerMessage = lease.token();
            }
            assertThat(messages.admit(header(keys, "account:2", newerMessage), "test:orders").token())
                    .isEqualTo(newerMessage);
            assertThatThrownBy(() -> messages.admit(header(keys, "account:2", olderMessage), "test:orders"))
                    .isInstanceOfSatisfying(MessageRefusedException.class,
                            e -> assertThat(e.reason()).isEqualTo(MessageRefusedException.Reason.STALE));
            assertThatThrownBy(() -> messages.admit(header(keys, "account:2", neverIssued), "test:orders"))
                    .isInstanceOfSatisfying(MessageRefusedException.class,
                            e -> assertThat(e.reason()).isEqualTo(MessageRefusedException.Reason.OUT_OF_RANGE));
        });
    }

    private static String header(SigningKeys keys, String resource, FencingToken token) {
        return keys.header(Fence.of(io.fenceguard.core.ResourceName.of(resource), token)).value();
    }
}
