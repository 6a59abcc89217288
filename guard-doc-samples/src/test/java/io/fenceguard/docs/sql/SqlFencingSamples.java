package io.fenceguard.docs.sql;

import io.fenceguard.db.FenceguardTriggers;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.ClaimMode;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The SQL-fencing guide's samples; trigger mode and the maintenance scope run in {@link TriggerModeSampleTest}. */
final class SqlFencingSamples {

    static DataSource configured(DataSource pool) {
        // tag::fencing-config[]
        DataSource fenced = FencedDataSource.wrap(pool, FencingConfig.builder()
                .fence("accounts")                                   // column current_token BIGINT
                .fence("billing.\"Order Lines\"")                    // names as written in SQL, quoted where needed
                .fence(FencedTable.of("billing.ledger", "fence_token"))
                .allowRoutine("audit.touch")                         // a routine that may write, vouched for
                .claimMode(ClaimMode.FIRST_STATEMENT)                  // default EXPLICIT
                .build());
        // end::fencing-config[]
        return fenced;
    }

    static DataSource triggerMode(DataSource dataSource, DataSource pool) {
        // tag::trigger-mode[]
        FenceguardTriggers.install(dataSource, "accounts", "orders");         // fenceguard-db, idempotent
        DataSource fenced = FencedDataSource.wrap(pool, FencingConfig.builder()
                .fence("accounts").fence("orders")
                .triggerMode(true)                                            // the guard sets the session's token
                .build());
        // end::trigger-mode[]
        return fenced;
    }

    static void backfill(Connection connection) throws SQLException {
        // tag::maintenance-scope[]
        connection.setAutoCommit(false);                                     // PostgreSQL: the scope is the transaction
        try (var scope = FenceguardTriggers.maintenance(connection, "backfill, ticket 4711");
             Statement statement = connection.createStatement()) {
            statement.executeUpdate("UPDATE accounts SET balance = 0 WHERE id = 'closed'");
        }
        connection.commit();
        // end::maintenance-scope[]
    }

    private SqlFencingSamples() {
    }
}
