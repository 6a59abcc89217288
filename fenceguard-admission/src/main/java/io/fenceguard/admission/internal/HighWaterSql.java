package io.fenceguard.admission.internal;

import io.fenceguard.admission.Admission;
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

    private HighWaterSql(String table) {
        this.table = table;
    }

    public static HighWaterSql forDatabase(Connection connection, String table) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName().toLowerCase(java.util.Locale.ROOT);
        return product.contains("postgres") ? new Postgres(table) : new LockingRead(table);
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
        String insert = "INSERT INTO " + idempotencyTable + " (resource, idem_key, fingerprint, token, created_at) "
                + "VALUES (?, ?, ?, ?, ?)" + (abortsOnError() ? " ON CONFLICT (resource, idem_key) DO NOTHING" : "");
        try (PreparedStatement claim = connection.prepareStatement(insert)) {
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

    /** The claim of {@code key}: fingerprint, created_at, and the recorded response (status null while in progress). */
    public record IdempotencyRow(String fingerprint, java.time.Instant created, Integer status, String contentType,
            byte[] body) {
    }

    public IdempotencyRow readIdempotencyClaim(Connection connection, String idempotencyTable, String resource, String key)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT fingerprint, created_at, status, content_type, "
                + "body FROM " + idempotencyTable + " WHERE resource = ? AND idem_key = ?")) {
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
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + idempotencyTable
                + " SET status = ?, content_type = ?, body = ? WHERE resource = ? AND idem_key = ?")) {
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
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + idempotencyTable
                + " WHERE resource = ? AND idem_key = ? AND status IS NULL AND created_at < ?")) {
            delete.setString(1, resource);
            delete.setString(2, key);
            delete.setTimestamp(3, java.sql.Timestamp.from(before));
            return delete.executeUpdate();
        }
    }

    /** Deletes keys recorded before {@code before}. */
    public void purgeIdempotencyClaims(Connection connection, String idempotencyTable, java.time.Instant before)
            throws SQLException {
        try (PreparedStatement purge = connection.prepareStatement("DELETE FROM " + idempotencyTable
                + " WHERE created_at < ?")) {
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
            Fence presented, java.util.List<String> nonces, java.util.List<java.time.Instant> expires)
            throws SQLException {
        java.util.List<java.util.Optional<Admission>> answers = new java.util.ArrayList<>(nonces.size());
        for (int i = 0; i < nonces.size(); i++) {
            answers.add(admitSigned(connection, nonceTable, presented, nonces.get(i), expires.get(i)));
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
            String nonce, java.time.Instant expires, String key, String fingerprint) throws SQLException {
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
            try (PreparedStatement purge = connection.prepareStatement("DELETE FROM " + nonceTable + " WHERE expires_at < ?")) {
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

    /**
     * One statement: the upsert that only replaces a lower token, and the mark as the statement's
     * snapshot saw it. The upsert is only tried when that mark is lower than the presented token (or
     * absent): a continuing or stale token locks nothing and writes nothing, so its transaction commits
     * without a WAL flush and does not wait for the mark's row. When the upsert returns no row, the mark was at least the presented token; a
     * snapshot mark at least the presented token decides (equal: continued, higher: stale; marks only
     * grow, so either answer is a valid order of the concurrent admissions). Only when the snapshot
     * predates a concurrent claim does a follow-up read decide, as before: one round trip otherwise.
     */
    static final class Postgres extends HighWaterSql {
        private final String upsert;

        Postgres(String table) {
            super(table);
            this.upsert = "WITH " + markClaim("") + " SELECT (SELECT token FROM claimed), (SELECT token FROM previous)";
        }

        /**
         * The snapshot mark ({@code previous}) and the upsert that only replaces a lower token ({@code claimed}),
         * tried only when {@code when} (SQL ending in AND, or empty) holds too; parameters: resource, resource,
         * token, token.
         */
        private String markClaim(String when) {
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
         * The nonce inserted and, only when it was inserted, the upsert of {@link #admit} with the same snapshot
         * mark: the group's statement ({@link #admitEachSigned}) with one nonce, one round trip and one commit for
         * both. Concurrent uses of one nonce wait for the first one's commit and then find it: exactly one is
         * fresh. Each statement locks its nonce before its mark, so two of them cannot deadlock.
         */
        @Override
        public java.util.Optional<Admission> admitSigned(Connection connection, String nonceTable, Fence presented,
                String nonce, java.time.Instant expires) throws SQLException {
            return admitEachSigned(connection, nonceTable, presented, java.util.List.of(nonce), java.util.List.of(expires))
                    .get(0);
        }

        /**
         * The group's nonces inserted and, only when any was new, the upsert of {@link #admit} once: one statement,
         * one round trip and one commit for the whole group.
         */
        @Override
        public java.util.List<java.util.Optional<Admission>> admitEachSigned(Connection connection, String nonceTable,
                Fence presented, java.util.List<String> nonces, java.util.List<java.time.Instant> expires)
                throws SQLException {
            connection.setAutoCommit(true);
            purgeNoncesNowAndThen(connection, nonceTable);
            java.util.Map<String, java.sql.Timestamp> distinct = new java.util.LinkedHashMap<>();
            for (int i = 0; i < nonces.size(); i++) {
                distinct.putIfAbsent(nonces.get(i), java.sql.Timestamp.from(expires.get(i)));
            }
            java.util.Set<String> fresh = new java.util.HashSet<>();
            Admission decided = null;
            boolean reread = false;
            try (PreparedStatement claim = connection.prepareStatement(signedGroupUpsert(nonceTable))) {
                claim.setArray(1, connection.createArrayOf("text", distinct.keySet().toArray()));
                claim.setArray(2, connection.createArrayOf("timestamp", distinct.values().toArray()));
                bindMark(claim, 3, presented);
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
            return io.fenceguard.admission.SignedAdmissionStore.groupAnswers(freshInOrder(nonces, fresh), decided);
        }

        /**
         * One statement: the nonce inserted (when there is one), the upsert of {@link #admit} only when it was new,
         * and the key's claim inserted only when the token is admitted (claimed, or equal to the snapshot mark),
         * with the key's row as the snapshot saw it. A token the statement cannot decide (its snapshot predates a
         * concurrent claim) is decided by a read, and its key is then not claimed here.
         */
        @Override
        public ClaimedRow admitClaiming(Connection connection, String nonceTable, String idempotencyTable,
                Fence presented, String nonce, java.time.Instant expires, String key, String fingerprint)
                throws SQLException {
            connection.setAutoCommit(true);
            if (nonce != null) {
                purgeNoncesNowAndThen(connection, nonceTable);
            }
            String fresh = nonce == null ? "" : "EXISTS (SELECT 1 FROM fresh) AND ";
            String statement = "WITH " + (nonce == null ? "" : "fresh AS (INSERT INTO " + nonceTable
                    + " (nonce, expires_at) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING RETURNING nonce), ")
                    + markClaim(fresh) + ", keyed AS (INSERT INTO " + idempotencyTable
                    + " (resource, idem_key, fingerprint, token, created_at) SELECT ?, ?, ?, ?, ? WHERE " + fresh
                    + "(EXISTS (SELECT 1 FROM claimed) OR EXISTS (SELECT 1 FROM previous WHERE token = ?)) "
                    + "ON CONFLICT (resource, idem_key) DO NOTHING RETURNING 1) "
                    + "SELECT " + (nonce == null ? "1" : "(SELECT count(*) FROM fresh)")
                    + ", (SELECT token FROM claimed), (SELECT token FROM previous), (SELECT count(*) FROM keyed), "
                    + "f.fingerprint, f.created_at, f.status, f.content_type, f.body FROM (SELECT 1) AS one "
                    + "LEFT JOIN " + idempotencyTable + " AS f ON f.resource = ? AND f.idem_key = ?";
            Admission admission;
            try (PreparedStatement claim = connection.prepareStatement(statement)) {
                int at = 1;
                if (nonce != null) {
                    claim.setString(at++, nonce);
                    claim.setTimestamp(at++, java.sql.Timestamp.from(expires));
                }
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

        /** The statement of {@link #admitEachSigned}, for this store's nonce table. */
        String signedGroupUpsert(String nonceTable) {
            return "WITH fresh AS (INSERT INTO " + nonceTable + " (nonce, expires_at) "
                    + "SELECT n, e FROM unnest(?::text[], ?::timestamp[]) AS g(n, e) "
                    + "ON CONFLICT (nonce) DO NOTHING RETURNING nonce), "
                    + markClaim("EXISTS (SELECT 1 FROM fresh) AND ")
                    + " SELECT (SELECT array_agg(nonce) FROM fresh), (SELECT token FROM claimed), "
                    + "(SELECT token FROM previous)";
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
}
