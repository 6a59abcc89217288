package io.fenceguard.example;

import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.RedisEndpoint;
import io.fenceguard.test.support.TestServers;
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
            List<String> args = new ArrayList<>(COMMON);
            args.addAll(serverArgs(server, database, TestServers.redis()));
            try (RunningJar app = RunningJar.start(name, args)) {
                runContract(app);
            }
        } finally {
            execute(server, "DROP DATABASE " + database);
        }
    }

    /** The service's arguments for {@code database} on {@code server} and for {@code redis}, keys under its own prefix. */
    static List<String> serverArgs(JdbcEndpoint server, String database, RedisEndpoint redis) {
        return List.of("--spring.datasource.url=" + withDatabase(server.url(), database),
                "--spring.datasource.username=" + server.user(), "--spring.datasource.password=" + server.password(),
                "--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
                "--fenceguard.redis.key-prefix=" + database + ":",
                // The contract presents tokens of its own minted on the clock: the ledger's leases take the same mode.
                "--fenceguard.redis.token-epoch=clock");
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
