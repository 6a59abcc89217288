package io.fenceguard.jdbc.internal.admission;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The statements of the JDBC high-water store, per dialect. */
public abstract class HighWaterSql {

    protected final String table;

    HighWaterSql(String table) {
        this.table = table;
    }

    /**
     * The statements for the database behind {@code connection}. On PostgreSQL, {@code sinceTable} names the
     * unlogged table that tells whether nonces committed without a WAL flush may have been lost
     * ({@link PostgresHighWaterSql}); when it is not there (or not unlogged), every nonce's commit waits for its flush.
     */
    public static HighWaterSql forDatabase(Connection connection, String table, String sinceTable) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
        return product.contains("postgres") ? new PostgresHighWaterSql(table, sinceTable) : new LockingReadHighWaterSql(table);
    }

    public abstract Admission admit(Connection connection, Fence presented) throws SQLException;

    /**
     * The admission inside the caller's open transaction (auto-commit off): the mark's row stays locked
     * until that transaction ends, and its outcome commits or rolls back with it.
     */
    public abstract Admission admitInTransaction(Connection connection, Fence presented) throws SQLException;

    /**
     * The batch's admissions in one transaction of its own (auto-commit on): by default one locking
     * admission per fence, in order; PostgreSQL raises every resource's mark with three statements.
     */
    public java.util.List<Admission> admitAll(Connection connection, java.util.List<Fence> presented)
            throws SQLException {
        java.util.List<Admission> admissions = new java.util.ArrayList<>(presented.size());
        for (Fence fence : presented) {
            admissions.add(admit(connection, fence));
        }
        return admissions;
    }

    /**
     * The admissions of {@code presented} in order, from the marks before the batch ({@code previous}, absent:
     * no mark): each as if admitted after the ones before it.
     */
    public static java.util.List<Admission> inOrder(java.util.List<Fence> presented,
            java.util.Map<ResourceName, FencingToken> previous) {
        java.util.Map<ResourceName, FencingToken> marks = new java.util.HashMap<>(previous);
        java.util.List<Admission> admissions = new java.util.ArrayList<>(presented.size());
        for (Fence fence : presented) {
            Admission admission = Admission.of(fence, marks.get(fence.resource()));
            marks.put(fence.resource(), admission.highWater());
            admissions.add(admission);
        }
        return admissions;
    }

    /** The highest token per resource in {@code presented}, ordered by resource (the order rows are locked in). */
    protected static java.util.SortedMap<String, Long> highest(java.util.List<Fence> presented) {
        java.util.SortedMap<String, Long> highest = new java.util.TreeMap<>();
        for (Fence fence : presented) {
            highest.merge(fence.resource().value(), fence.token().value(), Math::max);
        }
        return highest;
    }

    /** Whether a failed statement aborts the transaction it runs in (PostgreSQL), so conflicts must not raise. */
    protected boolean abortsOnError() {
        return false;
    }

    /** Inserts the claim of {@code key}; answers whether it was inserted (false: the key is there already). */
    public boolean insertIdempotencyClaim(Connection connection, String idempotencyTable, Fence presented, String key,
            String fingerprint) throws SQLException {
        try (PreparedStatement claim = connection.prepareStatement(insertClaimStatement(idempotencyTable,
                abortsOnError()))) {
            claim.setString(1, presented.resource().value());
            claim.setString(2, key);
            claim.setString(3, fingerprint);
            claim.setLong(4, presented.token().value());
            claim.setTimestamp(5, java.sql.Timestamp.from(java.time.Instant.now()));
            return claim.executeUpdate() == 1;
        } catch (SQLException e) {
            if (!abortsOnError() && e.getSQLState() != null && e.getSQLState().startsWith("23")) {
                return false;
            }
            throw e;
        }
    }

    /**
     * The insert of a key's claim (parameters: resource, key, fingerprint, token, created at), doing nothing on a
     * conflict when {@code ignoringConflict}.
     */
    public static String insertClaimStatement(String idempotencyTable, boolean ignoringConflict) {
        return "INSERT INTO " + idempotencyTable + " (resource, idem_key, fingerprint, token, created_at) "
                + "VALUES (?, ?, ?, ?, ?)" + (ignoringConflict ? " ON CONFLICT (resource, idem_key) DO NOTHING" : "");
    }

    /** The read of a key's claim (parameters: resource, key; columns as {@link IdempotencyRow}'s). */
    public static String readClaimStatement(String idempotencyTable) {
        return "SELECT fingerprint, created_at, status, content_type, body FROM " + idempotencyTable
                + " WHERE resource = ? AND idem_key = ?";
    }

    /** The recording of a key's response (parameters: status, content type, body, resource, key). */
    public static String completeClaimStatement(String idempotencyTable) {
        return "UPDATE " + idempotencyTable + " SET status = ?, content_type = ?, body = ? WHERE resource = ? AND idem_key = ?";
    }

    /** The delete of a key's claim still in progress (parameters: resource, key, made before). */
    public static String deleteClaimStatement(String idempotencyTable) {
        return "DELETE FROM " + idempotencyTable + " WHERE resource = ? AND idem_key = ? AND status IS NULL AND created_at < ?";
    }

    /** The delete of nonces expired before a time (parameter: that time). */
    public static String purgeNoncesStatement(String nonceTable) {
        return "DELETE FROM " + nonceTable + " WHERE expires_at < ?";
    }

    /** The delete of keys recorded before a time (parameter: that time). */
    public static String purgeClaimsStatement(String idempotencyTable) {
        return "DELETE FROM " + idempotencyTable + " WHERE created_at < ?";
    }

    /** The claim of {@code key}: fingerprint, created_at, and the recorded response (status null while in progress). */
    public record IdempotencyRow(String fingerprint, java.time.Instant created, Integer status, String contentType,
            byte[] body) {
    }

    public IdempotencyRow readIdempotencyClaim(Connection connection, String idempotencyTable, String resource, String key)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(readClaimStatement(idempotencyTable))) {
            select.setString(1, resource);
            select.setString(2, key);
            try (ResultSet rows = select.executeQuery()) {
                if (!rows.next()) {
                    return null;
                }
                int status = rows.getInt(3);
                Integer recorded = rows.wasNull() ? null : status;  // read right after its column: NULL while in progress
                return new IdempotencyRow(rows.getString(1), rows.getTimestamp(2).toInstant(), recorded,
                        rows.getString(4), rows.getBytes(5));
            }
        }
    }

    public void completeIdempotencyClaim(Connection connection, String idempotencyTable, String resource, String key,
            int status, String contentType, byte[] body) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(completeClaimStatement(idempotencyTable))) {
            update.setInt(1, status);
            update.setString(2, contentType);
            update.setBytes(3, body);
            update.setString(4, resource);
            update.setString(5, key);
            update.executeUpdate();
        }
    }

    /** Deletes the claim of {@code key} if it is still in progress and was made before {@code before}. */
    public int deleteIdempotencyClaim(Connection connection, String idempotencyTable, String resource, String key,
            java.time.Instant before) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(deleteClaimStatement(idempotencyTable))) {
            delete.setString(1, resource);
            delete.setString(2, key);
            delete.setTimestamp(3, java.sql.Timestamp.from(before));
            return delete.executeUpdate();
        }
    }

    /** Deletes keys recorded before {@code before}. */
    public void purgeIdempotencyClaims(Connection connection, String idempotencyTable, java.time.Instant before)
            throws SQLException {
        try (PreparedStatement purge = connection.prepareStatement(purgeClaimsStatement(idempotencyTable))) {
            purge.setTimestamp(1, java.sql.Timestamp.from(before));
            purge.executeUpdate();
        }
    }

    /**
     * Inserts the nonce; a duplicate key means it was used. Expired nonces are deleted now and then by
     * the inserting connection.
     */
    public boolean firstUse(Connection connection, String nonceTable, String nonce, java.time.Instant expires)
            throws SQLException {
        connection.setAutoCommit(true);
        purgeNoncesNowAndThen(connection, nonceTable);
        return insertNonce(connection, nonceTable, nonce, expires);
    }

    /**
     * {@link #firstUse(Connection, String, String, java.time.Instant)} of a request signature's nonce, whose
     * creation time a dialect may use (PostgreSQL: to commit it without waiting for its flush).
     */
    public boolean firstUse(Connection connection, String nonceTable, SignedAdmissionStore.Nonce nonce)
            throws SQLException {
        return firstUse(connection, nonceTable, nonce.value(), nonce.expires());
    }

    /** Inserts the nonce in the connection's transaction; false when it is there already. */
    protected static boolean insertNonce(Connection connection, String nonceTable, String nonce,
            java.time.Instant expires) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + nonceTable + " (nonce, expires_at) VALUES (?, ?)")) {
            insert.setString(1, nonce);
            insert.setTimestamp(2, java.sql.Timestamp.from(expires));
            insert.executeUpdate();
            return true;
        } catch (SQLException e) {
            // 23505 (PostgreSQL, H2) and 23000 (MariaDB/MySQL): the nonce is already there.
            if (e.getSQLState() != null && e.getSQLState().startsWith("23")) {
                return false;
            }
            throw e;
        }
    }

    /**
     * The nonce's first use and, only when it is first, the admission (auto-commit on): empty when the nonce
     * was used. A recorded nonce stays committed whatever the admission's outcome. By default the two
     * statements of {@link #firstUse} and {@link #admit}, one after the other on this connection.
     */
    public java.util.Optional<Admission> admitSigned(Connection connection, String nonceTable, Fence presented,
            String nonce, java.time.Instant expires) throws SQLException {
        return firstUse(connection, nonceTable, nonce, expires) ? java.util.Optional.of(admit(connection, presented))
                : java.util.Optional.empty();
    }

    /**
     * Request-signed admissions of one fence that arrived together (auto-commit on), as {@link #admitSigned} one
     * after another: per nonce, empty when used, else the admission; the first fresh nonce's admission decides,
     * the other fresh ones continue a claim. By default one {@link #admitSigned} per nonce.
     */
    public java.util.List<java.util.Optional<Admission>> admitEachSigned(Connection connection, String nonceTable,
            Fence presented, java.util.List<SignedAdmissionStore.Nonce> nonces) throws SQLException {
        java.util.List<java.util.Optional<Admission>> answers = new java.util.ArrayList<>(nonces.size());
        for (SignedAdmissionStore.Nonce nonce : nonces) {
            answers.add(admitSigned(connection, nonceTable, presented, nonce.value(), nonce.expires()));
        }
        return answers;
    }

    /**
     * What one statement decided of an admission with an idempotency key's claim ({@link #admitClaiming}):
     * {@code replayed} when the nonce was used before (nothing else then); else the admission, whether this
     * request claimed the key, and the key's row as the statement's snapshot saw it when it did not ({@code null}:
     * none, or not looked at because the token was not admitted by the statement itself).
     */
    public record ClaimedRow(boolean replayed, Admission admission, boolean claimed, IdempotencyRow first) {
    }

    /**
     * The nonce ({@code null}: none), the admission and, when the token is admitted, the claim of {@code key}, in
     * one statement (auto-commit on); {@code null} when this database has no such statement.
     */
    public ClaimedRow admitClaiming(Connection connection, String nonceTable, String idempotencyTable, Fence presented,
            SignedAdmissionStore.Nonce nonce, String key, String fingerprint) throws SQLException {
        return null;
    }

    /**
     * Per nonce of the group, in order, whether it was fresh: in {@code inserted} and the first of its value in the
     * group (a nonce sent twice is a replay the second time).
     */
    protected static java.util.List<Boolean> freshInOrder(java.util.List<String> nonces, java.util.Set<String> inserted) {
        java.util.Set<String> seen = new java.util.HashSet<>();
        return nonces.stream().map(nonce -> seen.add(nonce) && inserted.contains(nonce)).toList();
    }

    /** Deletes the expired nonces on one call in 256: the table stays bounded without a job of its own. */
    protected static void purgeNoncesNowAndThen(Connection connection, String nonceTable) throws SQLException {
        if (java.util.concurrent.ThreadLocalRandom.current().nextInt(256) == 0) {
            try (PreparedStatement purge = connection.prepareStatement(purgeNoncesStatement(nonceTable))) {
                purge.setTimestamp(1, java.sql.Timestamp.from(java.time.Instant.now()));
                purge.executeUpdate();
            }
        }
    }

    /** Compare-and-set of the mark in one transaction, under a locking read. */
    public boolean reset(Connection connection, ResourceName resource, FencingToken expected, FencingToken mark)
            throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            FencingToken current = read(connection, resource, " FOR UPDATE");
            if (!java.util.Objects.equals(current, expected)) {
                connection.rollback();
                return false;
            }
            String statement = mark == null ? "DELETE FROM " + table + " WHERE resource = ?"
                    : current == null ? "INSERT INTO " + table + " (token, resource) VALUES (?, ?)"
                    : "UPDATE " + table + " SET token = ?, updated_at = CURRENT_TIMESTAMP WHERE resource = ?";
            try (PreparedStatement write = connection.prepareStatement(statement)) {
                if (mark == null) {
                    write.setString(1, resource.value());
                } else {
                    write.setLong(1, mark.value());
                    write.setString(2, resource.value());
                }
                write.executeUpdate();
            }
            connection.commit();
            return true;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

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
}
