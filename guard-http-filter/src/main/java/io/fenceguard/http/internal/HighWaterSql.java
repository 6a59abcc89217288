package io.fenceguard.http.internal;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.Admission;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The statements of the JDBC high-water store, per dialect. */
public abstract class HighWaterSql {

    protected final String table;

    private HighWaterSql(String table) {
        this.table = table;
    }

    public static HighWaterSql forDatabase(Connection connection, String table) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
        return product.contains("postgres") ? new Postgres(table) : new LockingRead(table);
    }

    public abstract Admission admit(Connection connection, Fence presented) throws SQLException;

    protected FencingToken read(Connection connection, ResourceName resource, String suffix) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT token FROM " + table + " WHERE resource = ?" + suffix)) {
            select.setString(1, resource.value());
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? FencingToken.of(rows.getLong(1)) : null;
            }
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + table + "]";
    }

    /**
     * One upsert that only replaces a lower token. When it returns no row, the mark was at least the
     * presented token; the follow-up read sees that mark or a newer one (marks only grow), and both
     * answers are a valid order of the concurrent admissions.
     */
    static final class Postgres extends HighWaterSql {
        private final String upsert;

        Postgres(String table) {
            super(table);
            this.upsert = "INSERT INTO " + table + " AS hw (resource, token) VALUES (?, ?) "
                    + "ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, updated_at = CURRENT_TIMESTAMP "
                    + "WHERE hw.token < EXCLUDED.token RETURNING token";
        }

        @Override
        public Admission admit(Connection connection, Fence presented) throws SQLException {
            connection.setAutoCommit(true);
            try (PreparedStatement claim = connection.prepareStatement(upsert)) {
                claim.setString(1, presented.resource().value());
                claim.setLong(2, presented.token().value());
                try (ResultSet rows = claim.executeQuery()) {
                    if (rows.next()) {
                        return Admission.claimed(presented);
                    }
                }
            }
            FencingToken highWater = read(connection, presented.resource(), "");
            if (highWater == null) {
                throw new SQLException("high-water row for '" + presented.resource() + "' vanished; refusing");
            }
            return Admission.of(presented, highWater);
        }
    }

    /**
     * SELECT … FOR UPDATE, then UPDATE, in one transaction (MySQL, MariaDB, H2). A resource's first row
     * is inserted on its own, outside that transaction: two transactions that both lock the gap of a
     * missing row and then insert would deadlock on InnoDB. A losing insert sees the row and locks it.
     */
    static final class LockingRead extends HighWaterSql {

        LockingRead(String table) {
            super(table);
        }

        @Override
        public Admission admit(Connection connection, Fence presented) throws SQLException {
            Admission admission = admitExisting(connection, presented);
            if (admission != null) {
                return admission;
            }
            try {
                connection.setAutoCommit(true);
                write(connection, "INSERT INTO " + table + " (token, resource) VALUES (?, ?)", presented);
                return Admission.claimed(presented);
            } catch (SQLException e) {
                if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                    throw e;
                }
            }
            admission = admitExisting(connection, presented);
            if (admission == null) {
                throw new SQLException("high-water row for '" + presented.resource() + "' vanished; refusing");
            }
            return admission;
        }

        /** The admission against the locked row, or {@code null} when the resource has no row yet. */
        private Admission admitExisting(Connection connection, Fence presented) throws SQLException {
            connection.setAutoCommit(false);
            try {
                FencingToken previous = read(connection, presented.resource(), " FOR UPDATE");
                if (previous == null) {
                    connection.rollback();
                    return null;
                }
                Admission admission = Admission.of(presented, previous);
                if (admission.outcome() == Admission.Outcome.CLAIMED) {
                    write(connection, "UPDATE " + table + " SET token = ?, updated_at = CURRENT_TIMESTAMP "
                            + "WHERE resource = ?", presented);
                }
                connection.commit();
                return admission;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }

        private void write(Connection connection, String statement, Fence presented) throws SQLException {
            try (PreparedStatement write = connection.prepareStatement(statement)) {
                write.setLong(1, presented.token().value());
                write.setString(2, presented.resource().value());
                write.executeUpdate();
            }
        }
    }
}
