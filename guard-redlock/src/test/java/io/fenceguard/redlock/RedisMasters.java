package io.fenceguard.redlock;

import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;

/** N independent redis-server processes of the test's own, each with a Redisson client of its own. */
final class RedisMasters implements AutoCloseable {

    private final List<RedisProcess> servers = new ArrayList<>();
    private final List<RedissonClient> clients = new ArrayList<>();

    private RedisMasters(int n) {
        try {
            for (int i = 0; i < n; i++) {
                RedisProcess server = RedisProcess.start();
                servers.add(server);
                clients.add(client(server.uri()));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    static RedisMasters start(int n) {
        return new RedisMasters(n);
    }

    /** No retries inside Redisson: a dead master must be a quick "no" (the provider's master timeout bounds each call). */
    static RedissonClient client(String uri) {
        Config config = new Config();
        var server = config.useSingleServer();
        server.setAddress(uri);
        server.setTimeout(3_000);
        server.setRetryAttempts(0);
        // Generous for a loaded machine; a dead master still fails at once (connection refused).
        server.setConnectTimeout(5_000);
        server.setConnectionMinimumIdleSize(2);
        server.setConnectionPoolSize(16);
        server.setReconnectionDelay(new ConstantDelay(Duration.ofMillis(100)));
        return Redisson.create(config);
    }

    List<RedissonClient> clients() {
        return clients;
    }

    RedisProcess server(int i) {
        return servers.get(i);
    }

    int size() {
        return servers.size();
    }

    @Override
    public void close() {
        clients.forEach(RedissonClient::shutdown);
        servers.forEach(RedisProcess::close);
    }
}
