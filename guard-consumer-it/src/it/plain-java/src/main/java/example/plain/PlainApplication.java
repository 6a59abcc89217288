package example.plain;

import com.sun.net.httpserver.HttpServer;
import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.http.filter.JavaHttpFencing;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.redis.jedis.JedisScriptClient;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import redis.clients.jedis.JedisPool;

/**
 * A plain Java program (no Spring) that uses fenceguard as the README shows: leases from Redis through a Jedis
 * pool, a fenced DataSource over PostgreSQL, the token header on java.net.http calls. It checks itself and
 * exits 0, or 1 with the reason.
 */
public final class PlainApplication {

    private static final String SCHEMA = "consumer_plain_java";
    private static final Duration WAIT = Duration.ofSeconds(5);

    private PlainApplication() {
    }

    public static void main(String[] args) {
        try {
            run();
            System.out.println("SELF-CHECK PASSED");
            System.exit(0);
        } catch (Throwable e) {
            System.err.println("SELF-CHECK FAILED: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run() throws Exception {
        PGSimpleDataSource postgres = new PGSimpleDataSource();
        postgres.setURL(requiredEnv("GUARD_TEST_POSTGRES_URL"));
        postgres.setUser(requiredEnv("GUARD_TEST_POSTGRES_USER"));
        postgres.setPassword(System.getenv().getOrDefault("GUARD_TEST_POSTGRES_PASSWORD", ""));
        freshSchema(postgres);
        postgres.setCurrentSchema(SCHEMA);
        // the application's table, then the guard's (below the fence: neither needs a lease)
        try (Connection c = postgres.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE accounts (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL,"
                    + " current_token BIGINT)");
        }
        FenceguardMigrations.migrate(postgres);
        DataSource db = FencedDataSource.wrap(postgres, FencingConfig.builder().fence("accounts").build());

        Map<String, String> received = new ConcurrentHashMap<>();
        HttpServer audit = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        audit.createContext("/audit/", exchange -> {
            String id = exchange.getRequestURI().getPath().substring("/audit/".length());
            received.put(id, String.valueOf(exchange.getRequestHeaders().getFirst("Fencing-Token")));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        audit.start();
        String auditUrl = "http://127.0.0.1:" + audit.getAddress().getPort();
        JavaHttpFencing fencing = JavaHttpFencing.of(OutboundFence.of(Destinations.of(auditUrl), SigningKeys.none()));
        HttpClient http = HttpClient.newHttpClient();

        try (JedisPool pool = new JedisPool(URI.create(requiredEnv("GUARD_TEST_REDIS_URL")));
             RedisLeaseProvider provider = RedisLeaseProvider.of(JedisScriptClient.of(pool), RedisLeaseConfig.defaults());
             LeaseManager guard = LeaseManager.of(provider)) {
            // a new account each run: a resource whose tokens nobody else has seen
            String id = "a-" + UUID.randomUUID();
            String resource = "account:" + id;

            long opened = guard.callWithLease(resource, WAIT, lease -> {
                update(db, "INSERT INTO accounts (id, balance) VALUES (?, ?)", id, 100);
                return lease.token().value();
            });
            require(storedToken(db, id) == opened, "the new row carries token " + storedToken(db, id)
                    + ", not the lease's " + opened);

            long deposited = guard.callWithLease(resource, WAIT, lease -> {
                update(db, "UPDATE accounts SET balance = balance + ? WHERE id = ?", 5, id);
                HttpRequest request = HttpRequest.newBuilder(URI.create(auditUrl + "/audit/" + id))
                        .POST(HttpRequest.BodyPublishers.ofString("deposit 5")).build();
                int status = http.send(fencing.apply(request), HttpResponse.BodyHandlers.discarding()).statusCode();
                require(status == 204, "the audit call answered " + status);
                return lease.token().value();
            });
            require(deposited > opened, "the second lease's token " + deposited + " is not above the first's " + opened);
            require(storedToken(db, id) == deposited, "the updated row carries token " + storedToken(db, id)
                    + ", not the lease's " + deposited);
            String header = received.get(id);
            require(header != null && header.contains(resource) && header.contains(Long.toString(deposited)),
                    "the audit call carried Fencing-Token " + header + ", not " + resource + " at " + deposited);

            // the first lease's token, presented after the second's write: refused at the row
            Lease stale = Lease.presented(Fence.of(ResourceName.of(resource), FencingToken.of(opened)), "self-check");
            try (LeaseContext.Scope scope = LeaseContext.bind(stale)) {
                update(db, "UPDATE accounts SET balance = balance + ? WHERE id = ?", 1000, id);
                throw new IllegalStateException("a write with the older token " + opened + " was accepted");
            } catch (SQLException e) {
                require(causes(e).stream().anyMatch(StaleTokenException.class::isInstance),
                        "the stale write failed, but not with StaleTokenException: " + e);
            }
            require(balance(db, id) == 105, "balance " + balance(db, id) + " after the refused write, not 105");
            System.out.println("plain-java: rows stamped with tokens " + opened + " and " + deposited + ", header '"
                    + header + "' downstream, token " + opened + " refused afterwards");
        } finally {
            audit.stop(0);
        }
    }

    private static void freshSchema(DataSource postgres) throws SQLException {
        try (Connection c = postgres.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            s.execute("CREATE SCHEMA " + SCHEMA);
        }
    }

    private static int update(DataSource db, String sql, Object... parameters) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement statement = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            return statement.executeUpdate();
        }
    }

    private static long storedToken(DataSource db, String id) throws SQLException {
        return queryLong(db, "SELECT current_token FROM accounts WHERE id = ?", id);
    }

    private static long balance(DataSource db, String id) throws SQLException {
        return queryLong(db, "SELECT balance FROM accounts WHERE id = ?", id);
    }

    private static long queryLong(DataSource db, String sql, String id) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement statement = c.prepareStatement(sql)) {
            statement.setString(1, id);
            try (ResultSet rows = statement.executeQuery()) {
                require(rows.next(), "no row for " + id);
                return rows.getLong(1);
            }
        }
    }

    private static String requiredEnv(String name) {
        String value = System.getenv(name);
        require(value != null && !value.isBlank(), "environment variable " + name + " is not set");
        return value;
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what);
        }
    }

    private static List<Throwable> causes(Throwable e) {
        List<Throwable> all = new ArrayList<>();
        for (Throwable t = e; t != null && !all.contains(t); t = t.getCause()) {
            all.add(t);
        }
        return all;
    }
}
