package io.fenceguard.testsupport;

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
    void mariadbAnswersWhenThereIsOne() throws Exception {
        try (Connection c = TestServers.mariadb().connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select version()")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).containsIgnoringCase("mariadb");
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
