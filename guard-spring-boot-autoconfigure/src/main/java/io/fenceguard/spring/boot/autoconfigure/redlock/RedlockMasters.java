package io.fenceguard.spring.boot.autoconfigure.redlock;

import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * One Redisson client per Redlock master, made from {@code fenceguard.redlock.addresses} and shut down with
 * the context. No retries inside the clients: a master that does not answer must be a quick "no". Not API: a bean
 * of {@link FenceguardRedlockAutoConfiguration} only, so that the clients close with the context.
 */
final class RedlockMasters implements AutoCloseable {

    private final List<RedissonClient> clients;

    RedlockMasters(FenceguardRedlockProperties properties) {
        List<String> addresses = properties.getAddresses();
        if (addresses == null || addresses.isEmpty()) {
            throw new IllegalStateException("fenceguard.lease.store=redlock needs fenceguard.redlock.addresses: "
                    + "the URLs of three or five independent Redis masters");
        }
        if (addresses.stream().distinct().count() != addresses.size()) {
            throw new IllegalStateException("fenceguard.redlock.addresses lists a master twice: " + addresses);
        }
        List<RedissonClient> made = new ArrayList<>();
        try {
            for (String address : addresses) {
                Config config = new Config();
                var server = config.useSingleServer();
                server.setAddress(address);
                server.setPassword(properties.getPassword());
                server.setRetryAttempts(0);
                server.setTimeout(Math.toIntExact(Math.max(properties.getMasterTimeout().toMillis() * 10, 1000)));
                server.setConnectTimeout(Math.toIntExact(properties.getConnectTimeout().toMillis()));
                server.setConnectionMinimumIdleSize(1);
                made.add(Redisson.create(config));
            }
        } catch (RuntimeException e) {
            made.forEach(RedissonClient::shutdown);
            throw new IllegalStateException("cannot connect to a Redlock master of " + addresses + ": " + e.getMessage(), e);
        }
        this.clients = List.copyOf(made);
    }

    List<RedissonClient> clients() {
        return clients;
    }

    @Override
    public void close() {
        clients.forEach(RedissonClient::shutdown);
    }
}
