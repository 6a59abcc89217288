package io.fenceguard.test.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Callable;
import javax.sql.DataSource;

/**
 * The one-account ledger of the stale-write tests: table {@value #NAME} (id, balance, current_token), account 1
 * with a balance of 100; fenced by its {@code current_token} column once a test wraps the data source.
 */
public final class LedgerTable {

    public static final String NAME = "ledger";

    private LedgerTable() {
    }

    /** Creates the table, with account 1 at a balance of 100. */
    public static void create(DataSource raw) throws SQLException {
        try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + NAME + " (id INT PRIMARY KEY, balance INT NOT NULL, current_token BIGINT)");
            statement.execute("INSERT INTO " + NAME + " (id, balance) VALUES (1, 100)");
        }
    }

    /** Sets account 1's balance; returns the rows updated. */
    public static int setBalance(DataSource dataSource, int balance) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement statement = c.prepareStatement("UPDATE " + NAME + " SET balance = ? WHERE id = 1")) {
            statement.setInt(1, balance);
            return statement.executeUpdate();
        }
    }

    /** Account 1's balance. */
    public static int balance(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
             ResultSet rows = c.createStatement().executeQuery("SELECT balance FROM " + NAME + " WHERE id = 1")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /**
     * The steps after the old holder's lease is gone (expired, or its session closed) while its write of 90 stands:
     * the next holder gets a greater token and writes 80; the old holder writes anyway with its old token and the
     * database refuses it with {@code refusal}, naming the resource; the balance stays 80.
     *
     * @param nextHolder acquires the resource for the next holder; its lease is closed after its write
     */
    public static void assertOnlyTheNextHolderWrites(DataSource raw, DataSource fenced, Lease old,
                                                     Callable<Lease> nextHolder,
                                                     Class<? extends Throwable> refusal) throws Exception {
        try (Lease next = nextHolder.call();
             LeaseContext.Scope scope = LeaseContext.bind(next)) {
            assertThat(next.token()).isGreaterThan(old.token());
            assertThat(setBalance(fenced, 80)).isEqualTo(1);
        }

        // The old holder wakes (or never learnt) and writes with its old token: the database refuses it.
        try (Lease woken = Lease.presented(old.fence(), "woken-holder");
             LeaseContext.Scope scope = LeaseContext.bind(woken)) {
            assertThatThrownBy(() -> setBalance(fenced, 0)).isInstanceOf(refusal)
                    .hasMessageContaining(old.resource().value());
        }
        assertThat(balance(raw)).isEqualTo(80);
    }
}
