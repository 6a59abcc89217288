package io.fenceguard.test.support;

import java.net.URI;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The Testcontainers way to a server. Loaded only once {@link TestServers} has seen the Testcontainers
 * modules it needs on the class path; each container lives until the JVM exits (Ryuk removes it).
 */
final class ContainerServers {

    private ContainerServers() {
    }

    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    static RedisEndpoint redis() {
        GenericContainer<?> redis = new GenericContainer<>("redis:7.0").withExposedPorts(6379);
        redis.start();
        return new RedisEndpoint(redis.getHost(), redis.getMappedPort(6379));
    }

    static JdbcEndpoint postgres() {
        PostgreSQLContainer pg = new PostgreSQLContainer("postgres:15");
        pg.start();
        return new JdbcEndpoint(pg.getJdbcUrl(), pg.getUsername(), pg.getPassword());
    }

    static JdbcEndpoint mariadb() {
        MariaDBContainer db = new MariaDBContainer("mariadb:10.11");
        db.start();
        return new JdbcEndpoint(db.getJdbcUrl(), db.getUsername(), db.getPassword());
    }

    static URI rabbitmq() {
        GenericContainer<?> rabbit = new GenericContainer<>("rabbitmq:4.1").withExposedPorts(5672)
                .waitingFor(Wait.forLogMessage(".*Server startup complete.*", 1));
        rabbit.start();
        return URI.create("amqp://guest:guest@" + rabbit.getHost() + ":" + rabbit.getMappedPort(5672));
    }
}
