package io.fenceguard.example.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import redis.embedded.RedisServer;

/**
 * An embedded Redis (the binary in the embedded-redis jar, or redis-server on the PATH) on loopback,
 * in memory only: no snapshot, no append-only file. Nothing the example needs is lost with it: a new
 * Redis starts every resource's tokens above all earlier ones (the lease store's clock floor).
 */
public final class EmbeddedRedis implements AutoCloseable {

    private final RedisServer server;
    private final int port;

    private EmbeddedRedis(RedisServer server, int port) {
        this.server = server;
        this.port = port;
    }

    public static EmbeddedRedis start(int port) {
        try {
            RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
                    .setting("save \"\"").setting("appendonly no").build();
            server.start();
            return new EmbeddedRedis(server, port);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start embedded Redis on port " + port, e);
        }
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (IOException e) {
            throw new UncheckedIOException("could not stop embedded Redis on port " + port, e);
        }
    }
}
