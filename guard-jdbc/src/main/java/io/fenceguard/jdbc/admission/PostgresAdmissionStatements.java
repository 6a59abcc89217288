package io.fenceguard.jdbc.admission;

import io.fenceguard.jdbc.internal.admission.HighWaterSql;
import io.fenceguard.jdbc.internal.admission.PostgresHighWaterSql;

/**
 * The texts of {@link JdbcHighWaterStore}'s statements on PostgreSQL for its marks and idempotency keys, for a store
 * that keeps them in the same tables through another client (R2DBC): the same statements, so that both kinds of
 * instance share marks, claims and recorded responses. Placeholders are JDBC's {@code ?}, in the order each method
 * names; timestamps are {@code TIMESTAMP} columns in the application's time zone, as the JDBC store binds them.
 */
public final class PostgresAdmissionStatements {

    private final String table;
    private final String nonceTable;
    private final String idempotencyTable;
    private final String nonceSinceTable;

    private PostgresAdmissionStatements(String table, String schema) {
        this.table = table;
        this.nonceTable = schema + JdbcHighWaterStore.NONCE_TABLE;
        this.idempotencyTable = schema + JdbcHighWaterStore.IDEMPOTENCY_TABLE;
        this.nonceSinceTable = schema + JdbcHighWaterStore.NONCE_SINCE_TABLE;
    }

    /** The statements of the store on the mark table {@code table} (optionally schema-qualified; the others next to it). */
    public static PostgresAdmissionStatements on(String table) {
        return new PostgresAdmissionStatements(table, JdbcHighWaterStore.schemaPrefix(table));
    }

    /** The mark table. */
    public String table() {
        return table;
    }

    /** The nonce table next to the marks ({@link JdbcHighWaterStore#NONCE_TABLE}). */
    public String nonceTable() {
        return nonceTable;
    }

    /**
     * The unlogged table next to the marks ({@link JdbcHighWaterStore#NONCE_SINCE_TABLE}) whose one row says since when
     * every nonce committed without waiting for its WAL flush is still there: a store on these tables that finds it
     * there and unlogged ({@link #unlogged()}) must use the statements that check it, or a nonce that another instance
     * committed without its flush and a crash took away would be fresh again to it.
     */
    public String nonceSinceTable() {
        return nonceSinceTable;
    }

    /** Whether a table is there and unlogged: parameter its name; one row, {@code u}, when it is. */
    public String unlogged() {
        return PostgresHighWaterSql.unloggedStatement();
    }

    /**
     * A request-signed admission in one statement: the nonce and, only when it was new, the admission. Parameters: the
     * nonce and its expiry, with {@code sinceChecked} the signature's creation in epoch seconds (checked against
     * {@link #nonceSinceTable()}); then resource, resource, token, token. Columns: the fresh nonces' count (0: a
     * replay), the claimed token, the snapshot mark, and with {@code withoutFlush} one more. With
     * {@code sinceChecked} and {@code withoutFlush} a commit that leaves the mark as it was does not wait for its WAL
     * flush, as the JDBC store's: only for a statement that commits by itself, never in a caller's transaction.
     */
    public String signedMark(boolean sinceChecked, boolean withoutFlush) {
        return PostgresHighWaterSql.signedMarkStatement(table, nonceTable, sinceChecked ? nonceSinceTable : null,
                withoutFlush);
    }

    /**
     * A nonce's first use: parameters the nonce, its expiry and, with {@code sinceChecked}, the signature's creation in
     * epoch seconds; one column, the fresh nonces' count (0: used before).
     */
    public String firstUse(boolean sinceChecked) {
        return PostgresHighWaterSql.firstUseStatement(nonceTable, sinceChecked ? nonceSinceTable : null);
    }

    /** The nonces that expired deleted: parameter the time. */
    public String purgeNonces() {
        return HighWaterSql.purgeNoncesStatement(nonceTable);
    }

    /** The idempotency table next to the marks ({@link JdbcHighWaterStore#IDEMPOTENCY_TABLE}). */
    public String idempotencyTable() {
        return idempotencyTable;
    }

    /**
     * The admission: parameters resource, resource, token, token; columns the claimed token ({@code null}: not
     * claimed) and the mark as the statement's snapshot saw it ({@code null}: none). When neither decides (the
     * snapshot predates a concurrent claim), a read of the mark does.
     */
    public String mark() {
        return PostgresHighWaterSql.markStatement(table);
    }

    /**
     * The nonce (when {@code signed}), the admission and, when the token is admitted, the key's claim in one
     * statement. Parameters: when {@code signed} the nonce and its expiry; then resource, resource, token, token (the
     * mark); resource, key, fingerprint, token, created at (the claim); token; resource, key. Columns: the fresh
     * nonces' count (0: a replay; 1 when not {@code signed}), the claimed token, the snapshot mark, the count of
     * claimed keys (1: this request claimed it), and the key's row as the snapshot saw it (fingerprint, created at,
     * status, content type, body; all {@code null} when there was none).
     */
    public String admitClaiming(boolean signed) {
        return admitClaiming(signed, false);
    }

    /**
     * {@link #admitClaiming(boolean)}, the nonce checked against {@link #nonceSinceTable()} when {@code sinceChecked}:
     * then the signature's creation in epoch seconds follows the nonce's expiry among the parameters.
     */
    public String admitClaiming(boolean signed, boolean sinceChecked) {
        return PostgresHighWaterSql.admitClaimingStatement(table, nonceTable, idempotencyTable, signed,
                signed && sinceChecked ? nonceSinceTable : null);
    }

    /** A key's claim, nothing on a conflict: parameters resource, key, fingerprint, token, created at. */
    public String insertClaim() {
        return HighWaterSql.insertClaimStatement(idempotencyTable, true);
    }

    /** A key's row: parameters resource, key; columns fingerprint, created at, status, content type, body. */
    public String readClaim() {
        return HighWaterSql.readClaimStatement(idempotencyTable);
    }

    /** The first response recorded: parameters status, content type, body, resource, key. */
    public String completeClaim() {
        return HighWaterSql.completeClaimStatement(idempotencyTable);
    }

    /** A claim still in progress deleted: parameters resource, key, made before. */
    public String deleteClaim() {
        return HighWaterSql.deleteClaimStatement(idempotencyTable);
    }

    /** The keys recorded before a time deleted: parameter that time. */
    public String purgeClaims() {
        return HighWaterSql.purgeClaimsStatement(idempotencyTable);
    }

    @Override
    public String toString() {
        return "PostgresAdmissionStatements[" + table + "]";
    }
}
