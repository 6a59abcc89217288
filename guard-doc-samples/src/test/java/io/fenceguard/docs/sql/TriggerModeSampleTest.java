package io.fenceguard.docs.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.docs.SampleDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.PreparedStatement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The trigger-mode and maintenance samples on PostgreSQL: a fenced write under a lease passes the triggers,
 * a raw write without a token is refused by the database, and a raw write in a maintenance scope passes.
 */
class TriggerModeSampleTest {

    @Test
    void theDatabaseRefusesAWriteWithoutTokenOutsideAMaintenanceScope() throws Exception {
        try (SampleDatabase db = SampleDatabase.create();
             InMemoryLeaseProvider provider = InMemoryLeaseProvider.create();
             LeaseManager guard = LeaseManager.of(provider)) {
            db.execute("CREATE TABLE orders (id TEXT PRIMARY KEY, current_token BIGINT)");
            db.execute("INSERT INTO accounts (id, balance) VALUES ('closed', 7)");
            DataSource fenced = SqlFencingSamples.triggerMode(db.pool(), db.pool());

            guard.callWithLease("account:42", Duration.ofSeconds(5), lease -> update(fenced,
                    "UPDATE accounts SET balance = balance + 1 WHERE id = '42'"));
            assertThat(db.queryLong("SELECT balance FROM accounts WHERE id = '42'")).isEqualTo(101);

            assertThatThrownBy(() -> update(db.pool(), "UPDATE accounts SET balance = 0 WHERE id = '42'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("without a fencing token");

            try (Connection connection = db.pool().getConnection()) {
                SqlFencingSamples.backfill(connection);
            }
            assertThat(db.queryLong("SELECT balance FROM accounts WHERE id = 'closed'")).isZero();
            assertThat(db.queryLong("SELECT COUNT(*) FROM fenceguard_maintenance_log")).isEqualTo(1);
        }
    }

    /** A PreparedStatement: the fence binds its token as parameters (a plain Statement would inline it). */
    private static int update(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
            return statement.executeUpdate();
        }
    }
}
