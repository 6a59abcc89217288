package io.fenceguard.example;

import io.fenceguard.testsupport.JdbcEndpoint;
import io.fenceguard.testsupport.RedisEndpoint;
import io.fenceguard.testsupport.TestServers;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The jar against real servers (those of {@link TestServers}): PostgreSQL and Redis, then MariaDB as
 * a second database. Each run gets a database of its own, dropped afterwards.
 */
class RealServersIT extends LedgerContract {

    @Test
    void ledgerContractHoldsOnPostgresqlAndRedis() throws Exception {
        runOn("postgresql", TestServers.postgres());
    }

    @Test
    void ledgerContractHoldsOnMariadb() throws Exception {
        runOn("mariadb", TestServers.mariadb());
    }

    private void runOn(String name, JdbcEndpoint server) throws Exception {
        String database = "fgexample_" + UUID.randomUUID().toString().substring(0, 8);
        execute(server, "CREATE DATABASE " + database);
        try {
            RedisEndpoint redis = TestServers.redis();
            List<String> args = new ArrayList<>(COMMON);
            args.add("--spring.datasource.url=" + withDatabase(server.url(), database));
            args.add("--spring.datasource.username=" + server.user());
            args.add("--spring.datasource.password=" + server.password());
            args.add("--spring.data.redis.host=" + redis.host());
            args.add("--spring.data.redis.port=" + redis.port());
            args.add("--fenceguard.redis.key-prefix=" + database + ":");
            try (RunningJar app = RunningJar.start(name, args)) {
                runContract(app);
            }
        } finally {
            execute(server, "DROP DATABASE " + database);
        }
    }

    /** Replaces the database of a JDBC URL such as {@code jdbc:postgresql://host:5432/test?x=y}. */
    static String withDatabase(String url, String database) {
        int query = url.indexOf('?');
        String base = query < 0 ? url : url.substring(0, query);
        String params = query < 0 ? "" : url.substring(query);
        int slash = base.lastIndexOf('/');
        return base.substring(0, slash + 1) + database + params;
    }

    private static void execute(JdbcEndpoint server, String sql) throws Exception {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
