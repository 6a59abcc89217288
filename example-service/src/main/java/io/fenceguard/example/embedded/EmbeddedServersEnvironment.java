package io.fenceguard.example.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Embedded defaults, so that the example runs on a machine with only a JDK: when no Redis
 * ({@code spring.data.redis.host|url}) or no database ({@code spring.datasource.url}) is configured,
 * starts an embedded Redis (in memory) and an embedded PostgreSQL whose data directory survives restarts,
 * on free loopback ports, for the life of the JVM, and says so in one line.
 * <ul>
 *   <li>{@code example.embedded.enabled} (true): false turns this off;</li>
 *   <li>{@code example.embedded.data-dir} ({@value #DEFAULT_DATA_DIR}): PostgreSQL's data directory
 *       (the server's own log is beside it, {@code <data-dir>.log});</li>
 *   <li>{@code example.embedded.discard} (false): true starts PostgreSQL on an emptied data directory.</li>
 * </ul>
 */
public class EmbeddedServersEnvironment implements EnvironmentPostProcessor {

    static final String DEFAULT_DATA_DIR = "${user.home}/.fenceguard-example/postgres";

    private final Log log;

    public EmbeddedServersEnvironment(DeferredLogFactory logs) {
        this.log = logs.getLog(EmbeddedServersEnvironment.class);
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication application) {
        if (!env.getProperty("example.embedded.enabled", Boolean.class, true)) {
            return;
        }
        Map<String, Object> properties = new HashMap<>();
        List<String> started = new ArrayList<>();
        List<AutoCloseable> servers = new ArrayList<>();
        if (!env.containsProperty("spring.datasource.url")) {
            Path dir = Path.of(env.resolveRequiredPlaceholders(
                    env.getProperty("example.embedded.data-dir", DEFAULT_DATA_DIR)));
            boolean discard = env.getProperty("example.embedded.discard", Boolean.class, false);
            PersistentPostgres postgres = PersistentPostgres.start(dir, freePort(), discard);
            servers.add(postgres);
            properties.put("spring.datasource.url", postgres.jdbcUrl());
            properties.put("spring.datasource.username", "postgres");
            properties.put("spring.datasource.password", "");
            started.add("embedded PostgreSQL in " + postgres.dataDirectory() + " on port " + postgres.port()
                    + (discard ? " (data discarded at start)" : " (data kept across restarts)"));
        }
        if (!env.containsProperty("spring.data.redis.host") && !env.containsProperty("spring.data.redis.url")) {
            EmbeddedRedis redis = EmbeddedRedis.start(freePort());
            servers.add(redis);
            properties.put("spring.data.redis.host", "127.0.0.1");
            properties.put("spring.data.redis.port", redis.port());
            started.add("embedded Redis on port " + redis.port() + " (in memory, nothing kept)");
        }
        if (started.isEmpty()) {
            return;
        }
        env.getPropertySources().addFirst(new MapPropertySource("example-embedded-servers", properties));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> servers.forEach(EmbeddedServersEnvironment::stop),
                "embedded-servers-stop"));
        log.info(String.join(", ", started));
    }

    private static void stop(AutoCloseable server) {
        try {
            server.close();
        } catch (Exception e) {
            // the JVM is going away; the server stops with it or on the next start
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
