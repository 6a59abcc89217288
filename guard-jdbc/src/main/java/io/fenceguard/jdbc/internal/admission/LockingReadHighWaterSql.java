package io.fenceguard.jdbc.internal.admission;

import io.fenceguard.admission.Admission;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The high-water store's statements on MySQL, MariaDB and H2: SELECT … FOR UPDATE, then UPDATE, in one
 * transaction. A resource's first row is inserted on its own, outside that transaction: two transactions that both
 * lock the gap of a missing row and then insert would deadlock on InnoDB. A losing insert sees the row and locks
 * it.
 */
final class LockingReadHighWaterSql extends HighWaterSql {

    LockingReadHighWaterSql(String table) {
        super(table);
    }

    /**
     * A mark at least the presented token, read without a lock, decides (equal: continued, higher: stale): marks only
     * grow, so the committed mark the read sees orders this admission before any claim it did not see, as a locked
     * read made a moment earlier would. A lease's requests after its first are then one read, not a transaction; only
     * a newer token (or a resource without a row) locks the row to claim it.
     */
    @Override
    public Admission admit(Connection connection, Fence presented) throws SQLException {
        connection.setAutoCommit(true);
        FencingToken seen = read(connection, presented.resource(), "");
        if (seen != null && !presented.token().isNewerThan(seen)) {
            return Admission.of(presented, seen);
        }
        Admission admission = admitExisting(connection, presented);
        if (admission != null) {
            return admission;
        }
        try {
            connection.setAutoCommit(true);
            write(connection, "INSERT INTO " + table + " (token, resource) VALUES (?, ?)", presented);
            return Admission.of(presented, null); // the first mark: it replaced none
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

    /**
     * The nonce inserted and the mark's row read under lock and raised in one transaction (one commit) when
     * the resource has a row; a new resource's first row is then inserted as {@link #admit} does, after the
     * nonce is committed. A used nonce rolls back, changing nothing.
     */
    @Override
    public java.util.Optional<Admission> admitSigned(Connection connection, String nonceTable, Fence presented,
            String nonce, java.time.Instant expires) throws SQLException {
        connection.setAutoCommit(true);
        purgeNoncesNowAndThen(connection, nonceTable);
        connection.setAutoCommit(false);
        try {
            if (!insertNonce(connection, nonceTable, nonce, expires)) {
                connection.rollback();
                return java.util.Optional.empty();
            }
            FencingToken previous = read(connection, presented.resource(), " FOR UPDATE");
            if (previous != null) {
                Admission admission = Admission.of(presented, previous);
                if (admission.outcome() == Admission.Outcome.CLAIMED) {
                    write(connection, "UPDATE " + table + " SET token = ?, updated_at = CURRENT_TIMESTAMP "
                            + "WHERE resource = ?", presented);
                }
                connection.commit();
                return java.util.Optional.of(admission);
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
        return java.util.Optional.of(admit(connection, presented));
    }

    @Override
    public Admission admitInTransaction(Connection connection, Fence presented) throws SQLException {
        FencingToken previous = read(connection, presented.resource(), " FOR UPDATE");
        if (previous == null) {
            try {
                write(connection, "INSERT INTO " + table + " (token, resource) VALUES (?, ?)", presented);
                return Admission.claimed(presented);
            } catch (SQLException e) {
                if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                    throw e;
                }
            }
            previous = read(connection, presented.resource(), " FOR UPDATE");
            if (previous == null) {
                throw new SQLException("high-water row for '" + presented.resource() + "' vanished; refusing");
            }
        }
        Admission admission = Admission.of(presented, previous);
        if (admission.outcome() == Admission.Outcome.CLAIMED) {
            write(connection, "UPDATE " + table + " SET token = ?, updated_at = CURRENT_TIMESTAMP "
                    + "WHERE resource = ?", presented);
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
