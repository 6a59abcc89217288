package io.fenceguard.redis;

import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.test.contract.LeaseProviderContract;
import io.fenceguard.test.contract.ReadWriteLeaseProviderContract;

/**
 * The two contracts a {@link RedisReadWriteLeaseProvider} passes, on a script client a test's {@code @Nested}
 * classes give.
 */
final class ReadWriteProviderContracts {

    private ReadWriteProviderContracts() {
    }

    /** The contract of every provider: a key prefix of its own per test, shared by a second provider of the test. */
    abstract static class Exclusive extends LeaseProviderContract {
        private RedisLeaseConfig config;

        /** A script client on the test class's connection to the test Redis. */
        protected abstract RedisScriptClient scriptClient();

        @Override
        protected LeaseProvider createProvider() {
            if (config == null) {
                config = RedisClients.fastRedis().build();
            }
            return RedisReadWriteLeaseProvider.of(scriptClient(), config);
        }
    }

    /** The read-write contract: each provider on a key prefix of its own. */
    abstract static class ReadWrite extends ReadWriteLeaseProviderContract {

        /** A script client on the test class's connection to the test Redis. */
        protected abstract RedisScriptClient scriptClient();

        @Override
        protected LeaseProvider createProvider() {
            return RedisReadWriteLeaseProvider.of(scriptClient(), RedisClients.fastRedis().build());
        }
    }
}
