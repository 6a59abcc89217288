package io.fenceguard.spring.boot.autoconfigure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.JdbcTokenEpochSource;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An application on an in-memory database starts again and again against one lock store: its database does not
 * outlive it, so its tokens rest on the clock floor and nothing of it is recorded in Redis; a durable store moves to
 * another database only when told which source it replaces. Real Redis, H2 and PostgreSQL.
 */
class InMemoryDatabaseEpochTest {

    private static final RedissonClient redisson = TestRedisson.shared();

    private final String prefix = "fgmem" + UUID.randomUUID().toString().substring(0, 8) + ":";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardRedisAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class))
            .withBean(RedissonClient.class, () -> redisson)
            .withPropertyValues("fenceguard.redis.key-prefix=" + prefix);

    @AfterEach
    void clean() {
        redisson.getKeys().deleteByPattern(prefix + "*");
        redisson.getKeys().delete("{" + prefix + "epoch-source}:highest-epoch");
    }

    /** A new in-memory database at each start, as Spring Boot's embedded H2 ({@code mem:<uuid>}). */
    private static DataSource inMemory() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    private String recorded() {
        return redisson.<String>getBucket(prefix + "epoch-source", StringCodec.INSTANCE).get();
    }

    @Test
    void anApplicationOnAnInMemoryDatabaseStartsAgainOnTheClockFloorAndRecordsNothing() {
        long[] last = {0};
        for (int start = 1; start <= 2; start++) {
            runner.withBean(DataSource.class, InMemoryDatabaseEpochTest::inMemory).run(context -> {
                assertThat(context).hasNotFailed();
                RedisLeaseProvider provider = context.getBean(RedisLeaseProvider.class);
                assertThat(provider.config().tokenEpochSource()).as("no durable epoch from an in-memory database")
                        .isNull();
                try (Lease lease = context.getBean(LeaseManager.class).acquire("account:1", Duration.ofSeconds(1))) {
                    assertThat(lease.token().value()).isGreaterThan(last[0]);
                    last[0] = lease.token().value();
                }
                assertThat(recorded()).as("nothing recorded in Redis").isNull();
            });
        }
        // A context without a DataSource (a slice test) on the same store starts as well.
        runner.run(context -> assertThat(context).hasNotFailed().hasSingleBean(RedisLeaseProvider.class));
    }

    @Test
    void theDatabaseEpochAskedForOnAnInMemoryDatabaseFailsStartUpSayingWhy() {
        runner.withBean(DataSource.class, InMemoryDatabaseEpochTest::inMemory)
                .withPropertyValues("fenceguard.redis.token-epoch=database")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("fenceguard.redis.token-epoch=database")
                        .hasMessageContaining("in-memory database"));
        assertThat(recorded()).isNull();
    }

    @Test
    void aDurableStoreRefusesTheClockFloorNamingTheWayOutAndMovesToAnotherDatabaseOnlyWhenTold() {
        try (ScratchSpace first = ScratchSpace.create(TestServers.postgres(), "fg_boot_move_a");
             ScratchSpace second = ScratchSpace.create(TestServers.postgres(), "fg_boot_move_b")) {
            String[] oldIdentity = {null};
            long[] oldToken = {0};
            runner.withBean(DataSource.class, first::dataSource).run(context -> {
                RedisLeaseProvider provider = context.getBean(RedisLeaseProvider.class);
                assertThat(provider.config().tokenEpochSource()).isInstanceOf(JdbcTokenEpochSource.class);
                oldIdentity[0] = provider.config().tokenEpochSource().identity();
                try (Lease lease = context.getBean(LeaseManager.class).acquire("account:1", Duration.ofSeconds(1))) {
                    oldToken[0] = lease.token().value();
                }
            });
            assertThat(recorded()).isEqualTo(oldIdentity[0]);

            runner.withBean(DataSource.class, InMemoryDatabaseEpochTest::inMemory)
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .hasMessageContaining(oldIdentity[0]).hasMessageContaining("fenceguard.redis.key-prefix"));
            runner.withBean(DataSource.class, second::dataSource)
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .hasMessageContaining("fenceguard.redis.token-epoch-source-replaces")
                            .hasMessageContaining(oldIdentity[0]));
            runner.withBean(DataSource.class, second::dataSource)
                    .withPropertyValues("fenceguard.redis.token-epoch-source-replaces=" + oldIdentity[0])
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        String newIdentity = context.getBean(RedisLeaseProvider.class).config().tokenEpochSource()
                                .identity();
                        assertThat(recorded()).isEqualTo(newIdentity).isNotEqualTo(oldIdentity[0]);
                        try (Lease lease = context.getBean(LeaseManager.class).acquire("account:2", Duration.ofSeconds(1))) {
                            assertThat(lease.token().value()).as("the new source's epoch above the old one's")
                                    .isGreaterThan(oldToken[0]);
                        }
                    });
        }
    }
}
