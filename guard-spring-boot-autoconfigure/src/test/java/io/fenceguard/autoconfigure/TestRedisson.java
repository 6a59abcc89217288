package io.fenceguard.autoconfigure;

import io.fenceguard.testsupport.TestServers;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** One Redisson client on the test Redis for all auto-configuration tests of this JVM, as an application has one. */
public final class TestRedisson {

    private static RedissonClient shared;

    private TestRedisson() {
    }

    public static synchronized RedissonClient shared() {
        if (shared == null) {
            Config config = new Config();
            config.useSingleServer().setAddress(TestServers.redis().uri());
            RedissonClient client = Redisson.create(config);
            Runtime.getRuntime().addShutdownHook(new Thread(client::shutdown, "test-redisson-shutdown"));
            shared = client;
        }
        return shared;
    }
}
