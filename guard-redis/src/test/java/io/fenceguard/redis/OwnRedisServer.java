package io.fenceguard.redis;

import io.fenceguard.test.support.RedisProcess;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.redisson.api.RedissonClient;

/**
 * A redis-server of the test class's own, for tests that freeze it or read its statistics, with a Redisson client on
 * it: started before the class's first test and stopped after its last (register it on a static field with
 * {@code @RegisterExtension}).
 */
final class OwnRedisServer implements BeforeAllCallback, AfterAllCallback {

    private RedisProcess server;
    private RedissonClient client;

    RedisProcess server() {
        return server;
    }

    RedissonClient client() {
        return client;
    }

    /** One command on the server, through a connection of the test's, not the client's. */
    Object call(String... args) {
        return server.call(args);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisProcess.start();
        client = RedisClients.single(server.uri());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (client != null) {
            client.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }
}
