package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

/** The Redis provider with tokens on a durable epoch (a PostgreSQL sequence) passes the contract. */
class RedisDurableEpochContractTest extends RedisProviderContract {

    @RegisterExtension
    static final ClassResource<RedissonClient> client = RedisClients.onTestRedisPerClass();

    @RegisterExtension
    static final ClassResource<Epochs> epochs = ClassResource.of(Epochs::open, Epochs::close);

    /** One epoch source for the class, on a sequence in a scratch schema of its own. */
    private record Epochs(ScratchDataSource database, JdbcTokenEpochSource source) {

        static Epochs open() {
            ScratchDataSource database = ScratchDataSource.on(TestServers.postgres(), "fg_epoch_contract");
            return new Epochs(database, JdbcTokenEpochSource.of(database,
                    database.space().schema() + ".fenceguard_token_epoch", Duration.ofSeconds(5)));
        }

        void close() {
            database.close();
        }
    }

    @Override
    protected RedisScriptClient scriptClient() {
        return RedissonScriptClient.of(client.get());
    }

    @Override
    protected RedisLeaseConfig.Builder settings() {
        return super.settings().tokenEpochSource(epochs.get().source());
    }
}
