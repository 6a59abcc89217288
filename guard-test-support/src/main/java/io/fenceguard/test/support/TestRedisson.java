package io.fenceguard.test.support;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * One Redisson client on the test Redis ({@link TestServers#redis()}) for all tests of this JVM, as an
 * application has one; shut down when the JVM exits. Needs Redisson on the test class path (an optional
 * dependency of this module: the modules that use it have it).
 */
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
