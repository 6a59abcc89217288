package io.fenceguard.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A reader whose shared lease ran out while it was paused, and that then writes (by mistake, or through
 * a path that forgot it only reads), is refused by the database once the writer that came after it has
 * written: the writer's token is above the reader's. Shared leases on an in-JVM ZooKeeper, row fencing
 * through fenceguard-jdbc on an H2 database.
 */
class SharedLeaseFencingTest {

    private static TestingServer server;
    private static CuratorFramework client;

    @BeforeAll
    static void startServer() {
        server = ZooKeepers.server();
        client = ZooKeepers.client(server.getConnectString());
    }

    @AfterAll
    static void stopServer() {
        ZooKeepers.close(client);
        ZooKeepers.close(server);
    }

    @Test
    void aStaleReadersWriteIsRefusedOnceTheWriterHasWritten() throws Exception {
        JdbcDataSource raw = new JdbcDataSource();
        raw.setURL("jdbc:h2:mem:fg_shared_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        raw.setUser("sa");
        FenceguardMigrations.migrate(raw);
        execute(raw, "CREATE TABLE report (id INT PRIMARY KEY, body VARCHAR(100) NOT NULL, current_token BIGINT)",
                "INSERT INTO report (id, body) VALUES (1, 'first')");
        DataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence("report").build());
        String update = "UPDATE report SET body = ? WHERE id = 1";

        LeaseConfig config = LeaseConfig.builder().leaseTime(Duration.ofMillis(800)).build();
        try (ZooKeeperLeaseProvider store = ZooKeeperLeaseProvider.of(client)) {
            PausableLeaseProvider readerView = PausableLeaseProvider.wrap(store);
            try (LeaseManager readers = LeaseManager.of(readerView, config);
                 // The writer's lease counts from its request, sent while the reader still holds: a long one.
                 LeaseManager writers = LeaseManager.of(store, LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build())) {
                Lease reader = readers.acquireShared("report:1", Duration.ofSeconds(5));
                assertThat(reader.mode()).isEqualTo(LeaseMode.SHARED);
                String seen;
                try (LeaseContext.Scope scope = LeaseContext.bind(reader)) {
                    seen = body(fenced);
                }
                readerView.pauseAllRenewals(Duration.ofHours(1)); // the reader stops, as in a long GC pause

                // The writer gets in once the reader's node is gone (its lease ran out without renewal).
                try (Lease writer = writers.acquire("report:1", Duration.ofSeconds(10));
                     LeaseContext.Scope scope = LeaseContext.bind(writer)) {
                    assertThat(writer.mode()).isEqualTo(LeaseMode.EXCLUSIVE);
                    assertThat(writer.token()).isGreaterThan(reader.token());
                    assertThat(write(fenced, update, "written by the writer")).isEqualTo(1);
                }

                // The reader wakes and writes what it read: its token is below the writer's, so it is refused.
                try (Lease slipped = Lease.presented(reader.fence(), "stale-reader");
                     LeaseContext.Scope scope = LeaseContext.bind(slipped)) {
                    assertThatThrownBy(() -> write(fenced, update, seen + ", stale"))
                            .isInstanceOf(StaleTokenException.class)
                            .hasMessageContaining("report:1");
                }
                assertThat(body(raw)).isEqualTo("written by the writer");
                reader.close();
            }
        }
    }

    private static String body(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
             ResultSet rows = c.createStatement().executeQuery("SELECT body FROM report WHERE id = 1")) {
            rows.next();
            return rows.getString(1);
        }
    }

    private static int write(DataSource dataSource, String sql, String body) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement statement = c.prepareStatement(sql)) {
            statement.setString(1, body);
            return statement.executeUpdate();
        }
    }

    private static void execute(DataSource dataSource, String... statements) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }
}
