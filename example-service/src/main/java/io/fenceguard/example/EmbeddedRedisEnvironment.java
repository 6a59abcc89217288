package io.fenceguard.example;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import redis.embedded.RedisServer;

/**
 * With no Redis configured ({@code spring.data.redis.host} / {@code spring.data.redis.url}), starts an
 * embedded one from Maven on a free loopback port for the life of the JVM, so the service runs on a
 * machine with only a JDK.
 */
public class EmbeddedRedisEnvironment implements EnvironmentPostProcessor {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication application) {
        if (env.containsProperty("spring.data.redis.host") || env.containsProperty("spring.data.redis.url")
                || !env.getProperty("example.embedded.enabled", Boolean.class, true)) {
            return;
        }
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
            }));
        } catch (IOException e) {
            throw new UncheckedIOException("could not start embedded Redis on port " + port, e);
        }
        env.getPropertySources().addFirst(new MapPropertySource("embedded-redis",
                Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", port)));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
