package io.fenceguard.db.bench;

import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.test.support.RedisEndpoint;
import io.fenceguard.test.support.RespClient;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What the marks cost per resource: {@code N} resources' rows in each table of fenceguard's migrations on PostgreSQL
 * and MariaDB (gate, high-water, nonce, idempotency: as the stores write them, with a 40-character resource name, a
 * 24-byte nonce in base64url, a 36-character idempotency key and a 120-byte stored answer), and the same marks as the
 * Redis store keeps them (its key shapes, read with {@code MEMORY USAGE}, and {@code INFO memory}'s used_memory before
 * and after). Prints bytes per resource (table and its indexes, after {@code ANALYZE}) and the growth at 10^6 and
 * 10^8 resources, then exits; nothing is asserted.
 *
 * <pre>./mvnw -B -pl db -am -Dbench=marks -Dbench.resources=20000 -DskipTests verify</pre>
 */
public final class MarkSizes {

    private static final String TABLES = "fenceguard_gate fenceguard_http_high_water fenceguard_http_nonce "
            + "fenceguard_http_idempotency";

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        System.out.printf(Locale.ROOT, "%-11s %-28s %12s %14s %14s%n", "store", "mark", "bytes/res.", "at 10^6", "at 10^8");
        try (ScratchSpace space = ScratchSpace.create(TestServers.postgres(), "fgmarks")) {
            PGSimpleDataSource db = new PGSimpleDataSource();
            db.setURL(space.jdbcUrl());
            db.setUser(space.server().user());
            db.setPassword(space.server().password());
            db.setCurrentSchema(space.schema());
            tables("PostgreSQL", db, n, true);
        }
        try (ScratchSpace space = ScratchSpace.create(TestServers.mariadb(), "fgmarks")) {
            MariaDbDataSource db = new MariaDbDataSource(space.jdbcUrl());
            db.setUser(space.server().user());
            db.setPassword(space.server().password());
            tables("MariaDB", db, n, false);
        }
        redis(n);
        System.exit(0);
    }

    private static void tables(String name, DataSource db, int n, boolean postgres) throws SQLException {
        FenceguardMigrations.migrate(db);
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO fenceguard_gate (resource, token) VALUES (?, ?)", n, (s, i) -> {
                s.setString(1, resource(i));
                s.setLong(2, 1_745_000_000_000_001L + i);
            });
            insert(c, "INSERT INTO fenceguard_http_high_water (resource, token) VALUES (?, ?)", n, (s, i) -> {
                s.setString(1, resource(i));
                s.setLong(2, 1_745_000_000_000_001L + i);
            });
            insert(c, "INSERT INTO fenceguard_http_nonce (nonce, expires_at) VALUES (?, CURRENT_TIMESTAMP)", n, (s, i) ->
                    s.setString(1, nonce(i)));
            byte[] answer = new byte[120];
            insert(c, "INSERT INTO fenceguard_http_idempotency (resource, idem_key, fingerprint, token, created_at, status,"
                    + " content_type, body) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, 201, 'application/json', ?)", n, (s, i) -> {
                s.setString(1, resource(i));
                s.setString(2, UUID.nameUUIDFromBytes(("k" + i).getBytes()).toString());
                s.setString(3, "%064x".formatted(i));
                s.setLong(4, 1_745_000_000_000_001L + i);
                s.setBytes(5, answer);
            });
            try (Statement s = c.createStatement()) {
                for (String table : TABLES.split(" ")) {
                    s.execute((postgres ? "ANALYZE " : "ANALYZE TABLE ") + table);
                    if (!postgres) {
                        s.execute("OPTIMIZE TABLE " + table); // InnoDB's sizes are page counts of a settled table
                    }
                }
            }
            c.commit();
            for (String table : TABLES.split(" ")) {
                print(name, table, bytes(c, table, postgres) / (double) n);
            }
        }
    }

    interface Row {
        void bind(PreparedStatement s, int i) throws SQLException;
    }

    private static void insert(Connection c, String sql, int n, Row row) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < n; i++) {
                row.bind(s, i);
                s.addBatch();
                if (i % 1000 == 999) {
                    s.executeBatch();
                }
            }
            s.executeBatch();
        }
    }

    private static long bytes(Connection c, String table, boolean postgres) throws SQLException {
        String sql = postgres ? "SELECT pg_total_relation_size(to_regclass(?))"
                : "SELECT data_length + index_length FROM information_schema.tables WHERE table_schema = DATABASE()"
                        + " AND table_name = ?";
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void redis(int n) {
        RedisEndpoint redis = TestServers.redis();
        String prefix = "fgmarks-" + UUID.randomUUID().toString().substring(0, 8) + ":{fg-hw}:";
        try (RespClient client = new RespClient(redis.host(), redis.port())) {
            long before = usedMemory(client);
            for (int i = 0; i < n; i++) {
                client.call("SET", prefix + resource(i), Long.toString(1_745_000_000_000_001L + i));
            }
            long marks = usedMemory(client);
            for (int i = 0; i < n; i++) {
                client.call("SET", prefix + "nonce:" + nonce(i), "1", "PX", "600000");
            }
            long nonces = usedMemory(client);
            String body = "x".repeat(120);
            for (int i = 0; i < n; i++) {
                String key = prefix + "idem:" + resource(i).length() + ":" + resource(i) + ":"
                        + UUID.nameUUIDFromBytes(("k" + i).getBytes());
                client.call("HSET", key, "fp", "%064x".formatted(i), "token", Long.toString(1_745_000_000_000_001L + i),
                        "status", "201", "type", "application/json", "body", body);
                client.call("PEXPIRE", key, "86400000");
            }
            long idempotency = usedMemory(client);
            print("Redis", "high-water key (INFO)", (marks - before) / (double) n);
            print("Redis", "high-water key (MEMORY)", sample(client, prefix + resource(n / 2)));
            print("Redis", "nonce key (INFO)", (nonces - marks) / (double) n);
            print("Redis", "idempotency hash (INFO)", (idempotency - nonces) / (double) n);
            for (int i = 0; i < n; i++) {
                client.call("DEL", prefix + resource(i), prefix + "nonce:" + nonce(i), prefix + "idem:"
                        + resource(i).length() + ":" + resource(i) + ":" + UUID.nameUUIDFromBytes(("k" + i).getBytes()));
            }
        }
    }

    private static long sample(RespClient client, String key) {
        return Long.parseLong(String.valueOf(client.call("MEMORY", "USAGE", key)));
    }

    private static long usedMemory(RespClient client) {
        String info = String.valueOf(client.call("INFO", "memory"));
        for (String line : info.split("\r\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("no used_memory in INFO memory");
    }

    private static void print(String store, String mark, double perResource) {
        System.out.printf(Locale.ROOT, "%-11s %-28s %12.0f %11.1f MB %11.1f GB%n", store, mark, perResource,
                perResource * 1e6 / 1e6, perResource * 1e8 / 1e9);
    }

    /** A 40-character resource name, as {@code account:<uuid-like>} names are. */
    private static String resource(int i) {
        return "account:" + "%032d".formatted(i);
    }

    /** A 24-byte random nonce in base64url (32 characters), as the signer makes them. */
    private static String nonce(int i) {
        return "%032x".formatted(i).substring(0, 32);
    }
}
