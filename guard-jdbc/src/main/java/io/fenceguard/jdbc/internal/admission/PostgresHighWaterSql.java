package io.fenceguard.jdbc.internal.admission;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.admission.SignedAdmissionStore.Nonce;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The high-water store's statements on PostgreSQL. One statement: the upsert that only replaces a lower token, and
 * the mark as the statement's snapshot saw it. The upsert is only tried when that mark is lower than the presented
 * token (or absent): a continuing or stale token locks nothing and writes nothing, so its transaction commits
 * without a WAL flush and does not wait for the mark's row. When the upsert returns no row, the mark was at least
 * the presented token; a snapshot mark at least the presented token decides (equal: continued, higher: stale;
 * marks only grow, so either answer is a valid order of the concurrent admissions). Only when the snapshot
 * predates a concurrent claim does a follow-up read decide, as before: one round trip otherwise.
 */
public final class PostgresHighWaterSql extends HighWaterSql {
    private final String upsert;
    /** The nonces' guard against commits lost with their unflushed WAL ({@link NonceSince}). */
    private final NonceSince nonceSince;

    PostgresHighWaterSql(String table, String sinceCandidate) {
        super(table);
        this.nonceSince = new NonceSince(sinceCandidate, table);
        this.upsert = markStatement(table);
    }

    /**
     * The statement of {@link #admit} on {@code table}: parameters resource, resource, token, token; columns the
     * claimed token ({@code null}: not claimed) and the snapshot mark ({@code null}: none).
     */
    public static String markStatement(String table) {
        return "WITH " + markClaim(table, "") + " SELECT (SELECT token FROM claimed), (SELECT token FROM previous)";
    }

    /**
     * The snapshot mark ({@code previous}) and the upsert that only replaces a lower token ({@code claimed}),
     * tried only when {@code when} (SQL ending in AND, or empty) holds too; parameters: resource, resource,
     * token, token.
     */
    private String markClaim(String when) {
        return markClaim(table, when);
    }

    private static String markClaim(String table, String when) {
        return "previous AS (SELECT token FROM " + table + " WHERE resource = ?), "
                + "claimed AS (INSERT INTO " + table + " AS hw (resource, token) "
                + "SELECT ?, ? WHERE " + when + "NOT EXISTS (SELECT 1 FROM previous WHERE token >= ?) "
                + "ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, updated_at = CURRENT_TIMESTAMP "
                + "WHERE hw.token < EXCLUDED.token RETURNING token)";
    }

    @Override
    protected boolean abortsOnError() {
        return true;
    }

    @Override
    public Admission admitInTransaction(Connection connection, Fence presented) throws SQLException {
        return upsert(connection, presented);
    }

    @Override
    public Admission admit(Connection connection, Fence presented) throws SQLException {
        connection.setAutoCommit(true);
        return upsert(connection, presented);
    }

    /**
     * One transaction for the whole batch, its rows locked in resource order: the missing marks inserted
     * with the batch's highest token (they had none before), the others read under lock and raised where
     * the batch holds a higher token. A deadlock or serialization failure is retried.
     */
    @Override
    public java.util.List<Admission> admitAll(Connection connection, java.util.List<Fence> presented)
            throws SQLException {
        if (presented.isEmpty()) {
            return java.util.List.of();
        }
        java.util.SortedMap<String, Long> highest = highest(presented);
        String[] resources = highest.keySet().toArray(String[]::new);
        Long[] tokens = highest.values().toArray(Long[]::new);
        connection.setAutoCommit(false);
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    java.util.Map<ResourceName, FencingToken> previous = raise(connection, resources, tokens);
                    connection.commit();
                    return inOrder(presented, previous);
                } catch (SQLException e) {
                    connection.rollback();
                    String state = e.getSQLState();
                    if (attempt >= 3 || !("40P01".equals(state) || "40001".equals(state))) {
                        throw e;
                    }
                }
            }
        } catch (RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    /** The marks before the batch, having raised them; the caller commits. */
    private java.util.Map<ResourceName, FencingToken> raise(Connection connection, String[] resources, Long[] tokens)
            throws SQLException {
        java.sql.Array resourceArray = connection.createArrayOf("text", resources);
        java.sql.Array tokenArray = connection.createArrayOf("bigint", tokens);
        java.util.Set<String> inserted = new java.util.HashSet<>();
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table + " (resource, token) "
                + "SELECT r, t FROM unnest(?::text[], ?::bigint[]) AS batch(r, t) ORDER BY r "
                + "ON CONFLICT (resource) DO NOTHING RETURNING resource")) {
            insert.setArray(1, resourceArray);
            insert.setArray(2, tokenArray);
            try (ResultSet rows = insert.executeQuery()) {
                while (rows.next()) {
                    inserted.add(rows.getString(1));
                }
            }
        }
        java.util.Map<ResourceName, FencingToken> previous = new java.util.HashMap<>();
        if (inserted.size() == resources.length) {
            return previous;
        }
        try (PreparedStatement lock = connection.prepareStatement("SELECT resource, token FROM " + table
                + " WHERE resource = ANY(?::text[]) ORDER BY resource FOR UPDATE")) {
            lock.setArray(1, resourceArray);
            try (ResultSet rows = lock.executeQuery()) {
                while (rows.next()) {
                    String resource = rows.getString(1);
                    if (!inserted.contains(resource)) {
                        previous.put(ResourceName.of(resource), FencingToken.of(rows.getLong(2)));
                    }
                }
            }
        }
        for (int i = 0; i < resources.length; i++) {
            if (!inserted.contains(resources[i]) && !previous.containsKey(ResourceName.of(resources[i]))) {
                throw new SQLException("high-water row for '" + resources[i] + "' vanished; refusing");
            }
        }
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + table + " AS hw "
                + "SET token = batch.t, updated_at = CURRENT_TIMESTAMP "
                + "FROM unnest(?::text[], ?::bigint[]) AS batch(r, t) WHERE hw.resource = batch.r AND hw.token < batch.t")) {
            update.setArray(1, resourceArray);
            update.setArray(2, tokenArray);
            update.executeUpdate();
        }
        return previous;
    }

    /**
     * The group's nonces inserted and, only when any was new, the upsert of {@link #admit} once: one statement,
     * one round trip and one commit for the whole group (a group of one: one request-signed admission). Concurrent
     * uses of one nonce wait for the first one's commit and then find it: exactly one is fresh. Each statement
     * locks its nonces before its mark, so two of them cannot deadlock. With the {@link NonceSince} table there, a
     * commit that leaves the mark as it was does not wait for its WAL flush (the next flush of any commit on the
     * server takes it along), and a nonce whose signature may predate a crash that lost such commits is not fresh.
     */
    @Override
    public java.util.List<java.util.Optional<Admission>> admitEachSigned(Connection connection, String nonceTable,
            Fence presented, java.util.List<Nonce> nonces) throws SQLException {
        connection.setAutoCommit(true);
        purgeNoncesNowAndThen(connection, nonceTable);
        java.util.Map<String, Nonce> distinct = new java.util.LinkedHashMap<>();
        for (Nonce nonce : nonces) {
            distinct.putIfAbsent(nonce.value(), nonce);
        }
        String since = nonceSince.table(connection);
        if (distinct.size() == 1) {
            // One nonce (most groups, and every uncoalesced admission): bound as values, not arrays.
            Admission one = admitSigned(connection, nonceTable, since, presented, distinct.values().iterator().next());
            return SignedAdmissionStore.groupAnswers(freshInOrder(nonces.stream().map(Nonce::value).toList(),
                    one == null ? java.util.Set.of() : distinct.keySet()), one);
        }
        java.util.Set<String> fresh = new java.util.HashSet<>();
        Admission decided = null;
        boolean reread = false;
        try (PreparedStatement claim = connection.prepareStatement(signedGroupUpsert(nonceTable, since))) {
            claim.setArray(1, connection.createArrayOf("text", distinct.keySet().toArray()));
            claim.setArray(2, connection.createArrayOf("timestamp", distinct.values().stream()
                    .map(nonce -> java.sql.Timestamp.from(nonce.expires())).toArray()));
            int at = 3;
            if (since != null) {
                claim.setArray(at++, connection.createArrayOf("bigint", distinct.values().stream()
                        .map(nonce -> nonce.created().getEpochSecond()).toArray()));
            }
            bindMark(claim, at, presented);
            try (ResultSet rows = claim.executeQuery()) {
                rows.next();
                java.sql.Array inserted = rows.getArray(1);
                if (inserted != null) {
                    for (Object nonce : (Object[]) inserted.getArray()) {
                        fresh.add((String) nonce);
                    }
                    decided = decided(rows, 2, presented);
                    reread = decided == null;
                }
            }
        }
        if (reread) {
            decided = reread(connection, presented);
        }
        return SignedAdmissionStore.groupAnswers(freshInOrder(nonces.stream().map(Nonce::value).toList(), fresh),
                decided);
    }

    /**
     * One request-signed admission in {@link #signedMarkStatement}'s one statement, committed as a group's: the
     * admission, or {@code null} when the nonce was used before.
     */
    private Admission admitSigned(Connection connection, String nonceTable, String since, Fence presented, Nonce nonce)
            throws SQLException {
        boolean reread;
        try (PreparedStatement claim = connection.prepareStatement(signedMarkStatement(table, nonceTable, since, true))) {
            bindMark(claim, bindNonce(claim, nonce, since != null), presented);
            try (ResultSet rows = claim.executeQuery()) {
                rows.next();
                if (rows.getLong(1) == 0) {
                    return null;
                }
                Admission decided = decided(rows, 2, presented);
                if (decided != null) {
                    return decided;
                }
                reread = true;
            }
        }
        return reread ? reread(connection, presented) : null;
    }

    /**
     * One statement: the nonce inserted (when there is one), the upsert of {@link #admit} only when it was new,
     * and the key's claim inserted only when the token is admitted (claimed, or equal to the snapshot mark),
     * with the key's row as the snapshot saw it. A token the statement cannot decide (its snapshot predates a
     * concurrent claim) is decided by a read, and its key is then not claimed here.
     */
    @Override
    public ClaimedRow admitClaiming(Connection connection, String nonceTable, String idempotencyTable,
            Fence presented, Nonce nonce, String key, String fingerprint) throws SQLException {
        connection.setAutoCommit(true);
        String since = null;
        if (nonce != null) {
            purgeNoncesNowAndThen(connection, nonceTable);
            since = nonceSince.table(connection);
        }
        // Its commit waits for the flush (a key's claim must outlive a crash), but its nonce may be one an earlier
        // admission committed without waiting: the same check of the signature's creation time.
        String statement = admitClaimingStatement(table, nonceTable, idempotencyTable, nonce != null, since);
        Admission admission;
        try (PreparedStatement claim = connection.prepareStatement(statement)) {
            int at = nonce == null ? 1 : bindNonce(claim, nonce, since != null);
            bindMark(claim, at, presented);
            at += 4;
            claim.setString(at++, presented.resource().value());
            claim.setString(at++, key);
            claim.setString(at++, fingerprint);
            claim.setLong(at++, presented.token().value());
            claim.setTimestamp(at++, java.sql.Timestamp.from(java.time.Instant.now()));
            claim.setLong(at++, presented.token().value());
            claim.setString(at++, presented.resource().value());
            claim.setString(at, key);
            try (ResultSet rows = claim.executeQuery()) {
                rows.next();
                if (rows.getLong(1) == 0) {
                    return new ClaimedRow(true, null, false, null);
                }
                admission = decided(rows, 2, presented);
                if (admission != null) {
                    boolean claimed = rows.getLong(4) == 1;
                    String first = rows.getString(5);
                    int status = rows.getInt(7);
                    Integer recorded = rows.wasNull() ? null : status;
                    return new ClaimedRow(false, admission, claimed, first == null ? null : new IdempotencyRow(first,
                            rows.getTimestamp(6).toInstant(), recorded, rows.getString(8), rows.getBytes(9)));
                }
            }
        }
        return new ClaimedRow(false, reread(connection, presented), false, null);
    }

    /**
     * The statement of {@link #admitClaiming} on {@code table} and the tables next to it, with a nonce when
     * {@code signed} (checked against the {@link NonceSince} table {@code since}, {@code null}: none). Parameters:
     * the nonce's ({@code signed}: value, expiry, and with {@code since} the signature's creation in epoch seconds),
     * resource, resource, token, token (the mark), resource, key, fingerprint, token, created at (the claim), token
     * (the continued mark), resource, key (the key's row). Columns: fresh nonces (1 when not {@code signed}), claimed
     * token, snapshot mark, whether the key was claimed, and the key's row: fingerprint, created at, status, content
     * type, body.
     */
    public static String admitClaimingStatement(String table, String nonceTable, String idempotencyTable,
            boolean signed, String since) {
        String fresh = signed ? "EXISTS (SELECT 1 FROM fresh) AND " : "";
        return (signed ? freshNonce(nonceTable, since) + ", " : "WITH ") + markClaim(table, fresh)
                + ", keyed AS (INSERT INTO " + idempotencyTable
                + " (resource, idem_key, fingerprint, token, created_at) SELECT ?, ?, ?, ?, ? WHERE " + fresh
                + "(EXISTS (SELECT 1 FROM claimed) OR EXISTS (SELECT 1 FROM previous WHERE token = ?)) "
                + "ON CONFLICT (resource, idem_key) DO NOTHING RETURNING 1) "
                + "SELECT " + (signed ? "(SELECT count(*) FROM fresh)" : "1")
                + ", (SELECT token FROM claimed), (SELECT token FROM previous), (SELECT count(*) FROM keyed), "
                + "f.fingerprint, f.created_at, f.status, f.content_type, f.body FROM (SELECT 1) AS one "
                + "LEFT JOIN " + idempotencyTable + " AS f ON f.resource = ? AND f.idem_key = ?";
    }

    /**
     * One nonce and, only when it was new, the upsert of {@link #admit}: one statement. Parameters: the nonce's value,
     * expiry and, with the {@link NonceSince} table {@code since}, the signature's creation in epoch seconds; then
     * resource, resource, token, token. Columns: fresh nonces (0: a replay), claimed token, snapshot mark. With
     * {@code since} and {@code withoutFlush}, a commit that leaves the mark as it was does not wait for its WAL flush.
     */
    public static String signedMarkStatement(String table, String nonceTable, String since, boolean withoutFlush) {
        return freshNonce(nonceTable, since) + ", " + markClaim(table, "EXISTS (SELECT 1 FROM fresh) AND ")
                + " SELECT (SELECT count(*) FROM fresh), (SELECT token FROM claimed), (SELECT token FROM previous)"
                + (since != null && withoutFlush ? ", " + unflushedUnlessClaimed() : "");
    }

    /**
     * One nonce inserted: parameters as {@link #signedMarkStatement}'s first ones; one column, the fresh nonces
     * (0: used before). Its commit waits for its flush.
     */
    public static String firstUseStatement(String nonceTable, String since) {
        return freshNonce(nonceTable, since) + " SELECT (SELECT count(*) FROM fresh)";
    }

    /** The query that tells whether the table named by its one parameter is there and unlogged: one row, {@code u}. */
    public static String unloggedStatement() {
        return NonceSince.UNLOGGED;
    }

    /** A column that lets the statement's commit skip its WAL flush unless it claimed the mark. */
    private static String unflushedUnlessClaimed() {
        return "set_config('synchronous_commit', CASE WHEN EXISTS "
                + "(SELECT 1 FROM claimed) THEN current_setting('synchronous_commit') ELSE 'off' END, true)";
    }

    /**
     * With the {@link NonceSince} table there: the nonce inserted in a commit that does not wait for its WAL flush (the
     * commit of the transaction it guards, joined by the handler's writes, flushes it), refused as used when its
     * signature may predate a loss of such commits.
     */
    @Override
    public boolean firstUse(Connection connection, String nonceTable, Nonce nonce) throws SQLException {
        return firstUse(connection, nonceTable, nonce, true);
    }

    /**
     * With the {@link NonceSince} table there, checked as {@link #firstUse(Connection, String, Nonce)} but waiting
     * for its flush, the signature's creation time unknown (taken as early as the longest lifetime allows).
     */
    @Override
    public boolean firstUse(Connection connection, String nonceTable, String nonce, java.time.Instant expires)
            throws SQLException {
        return firstUse(connection, nonceTable, new Nonce(nonce, expires), false);
    }

    private boolean firstUse(Connection connection, String nonceTable, Nonce nonce, boolean withoutFlush)
            throws SQLException {
        connection.setAutoCommit(true);
        String since = nonceSince.table(connection);
        if (since == null) {
            return super.firstUse(connection, nonceTable, nonce.value(), nonce.expires());
        }
        purgeNoncesNowAndThen(connection, nonceTable);
        try (PreparedStatement insert = connection.prepareStatement(freshNonce(nonceTable, since)
                + " SELECT (SELECT count(*) FROM fresh)"
                + (withoutFlush ? ", set_config('synchronous_commit', 'off', true)" : ""))) {
            bindNonce(insert, nonce, true);
            try (ResultSet rows = insert.executeQuery()) {
                rows.next();
                return rows.getLong(1) == 1;
            }
        }
    }

    /**
     * The start of a statement that inserts one nonce ({@code fresh}: it, when it was new) and, with the
     * {@link NonceSince} table {@code since}, only when its signature was created after that table's time; parameters
     * as {@link #bindNonce} binds them.
     */
    private static String freshNonce(String nonceTable, String since) {
        String insert = "fresh AS (INSERT INTO " + nonceTable + " (nonce, expires_at) ";
        String fresh = " ON CONFLICT (nonce) DO NOTHING RETURNING nonce)";
        return since == null ? "WITH " + insert + "VALUES (?, ?)" + fresh
                : NonceSince.checked(since) + insert + "SELECT ?, ? WHERE " + NonceSince.createdAfter("?") + fresh;
    }

    /** The parameters of {@link #freshNonce} from the first on, its creation time {@code withSince}; the next one's index. */
    private static int bindNonce(PreparedStatement statement, Nonce nonce, boolean withSince) throws SQLException {
        statement.setString(1, nonce.value());
        statement.setTimestamp(2, java.sql.Timestamp.from(nonce.expires()));
        if (!withSince) {
            return 3;
        }
        statement.setLong(3, nonce.created().getEpochSecond());
        return 4;
    }

    /** The statement of {@link #admitEachSigned}, for this store's nonce table. */
    String signedGroupUpsert(String nonceTable, String sinceTable) {
        if (sinceTable == null) {
            return "WITH fresh AS (INSERT INTO " + nonceTable + " (nonce, expires_at) "
                    + "SELECT n, e FROM unnest(?::text[], ?::timestamp[]) AS g(n, e) "
                    + "ON CONFLICT (nonce) DO NOTHING RETURNING nonce), "
                    + markClaim("EXISTS (SELECT 1 FROM fresh) AND ")
                    + " SELECT (SELECT array_agg(nonce) FROM fresh), (SELECT token FROM claimed), "
                    + "(SELECT token FROM previous)";
        }
        return NonceSince.checked(sinceTable) + "fresh AS (INSERT INTO " + nonceTable + " (nonce, expires_at) "
                + "SELECT n, e FROM unnest(?::text[], ?::timestamp[], ?::bigint[]) AS g(n, e, c) "
                + "WHERE " + NonceSince.createdAfter("c") + " ON CONFLICT (nonce) DO NOTHING RETURNING nonce), "
                + markClaim("EXISTS (SELECT 1 FROM fresh) AND ")
                + " SELECT (SELECT array_agg(nonce) FROM fresh), (SELECT token FROM claimed), "
                + "(SELECT token FROM previous), " + unflushedUnlessClaimed();
    }

    private Admission upsert(Connection connection, Fence presented) throws SQLException {
        try (PreparedStatement claim = connection.prepareStatement(upsert)) {
            bindMark(claim, 1, presented);
            try (ResultSet rows = claim.executeQuery()) {
                rows.next();
                Admission admission = decided(rows, 1, presented);
                if (admission != null) {
                    return admission;
                }
            }
        }
        return reread(connection, presented);
    }

    /** The upsert's four parameters, from {@code first} on. */
    private static void bindMark(PreparedStatement claim, int first, Fence presented) throws SQLException {
        claim.setString(first, presented.resource().value());
        claim.setString(first + 1, presented.resource().value());
        claim.setLong(first + 2, presented.token().value());
        claim.setLong(first + 3, presented.token().value());
    }

    /**
     * The admission from the upsert's claimed token (column {@code claimed}) and snapshot mark (the next
     * column), or {@code null} when the snapshot predates a concurrent claim and a fresh read must decide.
     */
    private static Admission decided(ResultSet rows, int claimed, Fence presented) throws SQLException {
        rows.getLong(claimed);
        if (!rows.wasNull()) {
            return Admission.claimed(presented);
        }
        long previous = rows.getLong(claimed + 1);
        if (!rows.wasNull() && !presented.token().isNewerThan(FencingToken.of(previous))) {
            return Admission.of(presented, FencingToken.of(previous));
        }
        return null;
    }

    private Admission reread(Connection connection, Fence presented) throws SQLException {
        FencingToken highWater = read(connection, presented.resource(), "");
        if (highWater == null) {
            throw new SQLException("high-water row for '" + presented.resource() + "' vanished; refusing");
        }
        return Admission.of(presented, highWater);
    }
}
