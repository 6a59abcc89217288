package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.internal.LeaseKeys;
import io.fenceguard.testsupport.TestServers;
import io.fenceguard.testsupport.contract.LeaseProviderContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.api.RedissonClient;

/** The Redis provider with tokens on a durable epoch (a PostgreSQL sequence) passes the contract. */
class RedisDurableEpochContractTest extends LeaseProviderContract {

    private static final Duration LOCK_DELAY = Duration.ofMillis(300);

    private static RedissonClient client;
    private static ScratchDataSource database;
    private static JdbcTokenEpochSource epochs;
    private RedisLeaseConfig config;

    @BeforeAll
    static void connect() {
        client = RedisClients.single(TestServers.redis().uri());
        database = ScratchDataSource.on(TestServers.postgres(), "fg_epoch_contract");
        epochs = JdbcTokenEpochSource.of(database, database.space().schema() + ".fenceguard_token_epoch", Duration.ofSeconds(5));
    }

    @AfterAll
    static void disconnect() {
        client.shutdown();
        database.close();
    }

    @Override
    protected LeaseProvider createProvider() {
        if (config == null) { // one key prefix per test: a second provider of the test shares the first one's keys
            config = RedisClients.fastRedis().lockDelay(LOCK_DELAY).tokenEpochSource(epochs).build();
        }
        return RedisLeaseProvider.of(RedissonScriptClient.of(client), config);
    }

    @Override
    protected Duration expiryWait() {
        return shortLease().plus(LOCK_DELAY).multipliedBy(5);
    }

    @Override
    protected boolean forget(ResourceName resource, Lease lease) {
        return client.getKeys().delete(LeaseKeys.of(config.keyPrefix(), resource).lock()) == 1;
    }
}
