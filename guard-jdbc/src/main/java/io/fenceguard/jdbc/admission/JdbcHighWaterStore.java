package io.fenceguard.jdbc.admission;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.IdempotentAdmissionStore;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.internal.admission.HighWaterSql;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * High-water marks in a database table ({@value #DEFAULT_TABLE}, created by the {@code db} module's
 * migrations). On PostgreSQL one conditional upsert claims or leaves the row; elsewhere a locking
 * read and an insert or update run in one transaction.
 *
 * <p>A signed request's nonce and its admission take one statement on PostgreSQL (an insert of the nonce
 * and the mark's upsert, only when the nonce was new); elsewhere one transaction (the nonce's insert, the mark's
 * locking read and update), except for a resource's first mark, inserted on its own after the nonce commits.
 * A request with an idempotency key has, on PostgreSQL outside a transaction, its nonce, its admission and its
 * key's claim in one statement ({@link #admitClaiming}).
 *
 * <p>Give it a DataSource that is not a {@link io.fenceguard.jdbc.FencedDataSource}: the store is what admits the token.
 */
public final class JdbcHighWaterStore implements IdempotentAdmissionStore, NonceStore {

    public static final String DEFAULT_TABLE = "fenceguard_http_high_water";
    /** The nonces of request signatures, next to the marks (the {@code db} module's migrations create it). */
    public static final String NONCE_TABLE = "fenceguard_http_nonce";
    /**
     * On PostgreSQL, an unlogged table (the {@code db} module's migration V7) whose one row says since when every
     * nonce committed without waiting for its WAL flush is still there; without it, each nonce's commit waits.
     */
    public static final String NONCE_SINCE_TABLE = "fenceguard_http_nonce_since";
    /** The first responses to idempotency keys, next to the marks (the {@code db} module's migrations create it). */
    public static final String IDEMPOTENCY_TABLE = "fenceguard_http_idempotency";
    /** How long a claim made outside a transaction may stay unanswered before a retry takes it over. */
    public static final java.time.Duration IN_PROGRESS_TIMEOUT = io.fenceguard.admission.IdempotencyRetention.IN_PROGRESS_TIMEOUT;
    /** How long a recorded response answers retries, unless set otherwise ({@link #withIdempotencyRetention}). */
    public static final java.time.Duration RETENTION = io.fenceguard.admission.IdempotencyRetention.DEFAULT;
    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final DataSource dataSource;
    private final HighWaterSql sql;
    private final String nonceTable;
    private final String idempotencyTable;
    private final DataSource transactional;
    private final java.time.Duration retention;

    private JdbcHighWaterStore(DataSource dataSource, HighWaterSql sql, String nonceTable, String idempotencyTable,
            DataSource transactional, java.time.Duration retention) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.nonceTable = nonceTable;
        this.idempotencyTable = idempotencyTable;
        this.transactional = transactional;
        this.retention = retention;
    }

    /**
     * This store keeping recorded responses for {@code retention} (default {@link #RETENTION}): retries after that
     * run again, and the idempotency table holds about a retention's worth of keyed requests. At least
     * {@link #IN_PROGRESS_TIMEOUT}, so that no claim is purged while its request may still be running.
     */
    public JdbcHighWaterStore withIdempotencyRetention(java.time.Duration retention) {
        return new JdbcHighWaterStore(dataSource, sql, nonceTable, idempotencyTable, transactional,
                io.fenceguard.admission.IdempotencyRetention.checked(retention));
    }

    /** How long recorded responses answer retries. */
    public java.time.Duration idempotencyRetention() {
        return retention;
    }

    /**
     * This store admitting (and recording idempotency keys) on connections of {@code transactional}: a
     * DataSource that hands out the current transaction's connection when one is open (Spring's
     * {@code TransactionAwareDataSourceProxy} over the handler's DataSource). Inside a transaction the
     * admission's upsert is one more statement of it: it commits with the handler's writes, rolls back
     * with them, and holds the mark's row lock until then (handlers of one resource run one at a time).
     * Outside one it runs as before. Nonces are still committed at once, so a signed request whose
     * handler failed is not admitted again.
     */
    public JdbcHighWaterStore joiningTransactions(DataSource transactional) {
        return new JdbcHighWaterStore(dataSource, sql, nonceTable, idempotencyTable,
                Objects.requireNonNull(transactional, "transactional"), retention);
    }

    /** Whether admissions join open transactions ({@link #joiningTransactions}). */
    @Override
    public boolean joinsTransactions() {
        return transactional != null;
    }

    /** Not in callers' transactions: one request's rollback would take back the others' admissions. */
    @Override
    public boolean admissionsMayCoalesce() {
        return !joinsTransactions();
    }

    /** The store on {@code table} (optionally schema-qualified), in the dialect of the database behind {@code dataSource}. */
    public static JdbcHighWaterStore of(DataSource dataSource, String table) {
        Objects.requireNonNull(dataSource, "dataSource");
        String prefix = schemaPrefix(table);
        try (Connection connection = dataSource.getConnection()) {
            return new JdbcHighWaterStore(dataSource, HighWaterSql.forDatabase(connection, table, prefix + NONCE_SINCE_TABLE),
                    prefix + NONCE_TABLE, prefix + IDEMPOTENCY_TABLE, null, RETENTION);
        } catch (SQLException e) {
            throw new IllegalStateException("could not connect to the high-water store's database", e);
        }
    }

    /**
     * The schema of {@code table} with its dot ({@code ""} when unqualified), where the tables next to it are; the name
     * checked to be an SQL identifier, optionally schema-qualified.
     */
    static String schemaPrefix(String table) {
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("a high-water table is an SQL identifier, optionally schema-qualified, got '"
                    + table + "'");
        }
        int dot = table.indexOf('.');
        return dot < 0 ? "" : table.substring(0, dot + 1);
    }

    public static JdbcHighWaterStore of(DataSource dataSource) {
        return of(dataSource, DEFAULT_TABLE);
    }

    @Override
    public Admission admit(Fence presented) {
        try (Connection connection = (transactional == null ? dataSource : transactional).getConnection()) {
            return connection.getAutoCommit() ? sql.admit(connection, presented)
                    : sql.admitInTransaction(connection, presented);
        } catch (SQLException e) {
            throw unavailable(presented, e);
        }
    }

    /**
     * The batch in one transaction of its own on PostgreSQL (one admission per fence elsewhere), never one the
     * caller has open: a batch is admitted before any of its work runs.
     */
    @Override
    public java.util.List<Admission> admitAll(java.util.List<Fence> presented) {
        try (Connection connection = dataSource.getConnection()) {
            return sql.admitAll(connection, presented);
        } catch (SQLException e) {
            Fence first = presented.get(0);
            throw new FenceguardException("high-water store unavailable for a batch of " + presented.size()
                    + " starting with '" + first.resource() + "': " + e.getMessage(), first.resource(), first.token(), e);
        }
    }

    @Override
    public boolean reset(ResourceName resource, FencingToken expected, FencingToken mark) {
        try (Connection connection = dataSource.getConnection()) {
            return sql.reset(connection, resource, expected, mark);
        } catch (SQLException e) {
            throw new FenceguardException("high-water store unavailable for '" + resource + "': " + e.getMessage(),
                    resource, null, e);
        }
    }

    @Override
    public boolean firstUse(String nonce, java.time.Instant expires) {
        try (Connection connection = dataSource.getConnection()) {
            return sql.firstUse(connection, nonceTable, nonce, expires);
        } catch (SQLException e) {
            throw new FenceguardException("nonce store unavailable: " + e.getMessage(), null, null, e);
        }
    }

    /** The nonce committed on a connection of its own, outside the caller's transaction. */
    private boolean firstUseApart(Nonce nonce) {
        try (Connection connection = dataSource.getConnection()) {
            return sql.firstUse(connection, nonceTable, nonce);
        } catch (SQLException e) {
            throw new FenceguardException("nonce store unavailable: " + e.getMessage(), null, null, e);
        }
    }

    /**
     * Joining an open transaction, the nonce is still committed at once, on a connection of its own, before
     * the admission joins the transaction: a replay stays refused after the handler's rollback.
     */
    @Override
    public java.util.Optional<Admission> admit(Fence presented, String nonce, java.time.Instant expires) {
        return admit(presented, new Nonce(nonce, expires));
    }

    /**
     * As {@link #admit(Fence, String, java.time.Instant)}; on PostgreSQL with the unlogged table
     * {@value #NONCE_SINCE_TABLE}, outside a transaction, an admission that leaves the mark as it was commits without
     * waiting for its WAL flush, and so does the nonce committed apart when joining a transaction (that transaction's
     * commit flushes it). Should the database then lose such a commit (a crash, a failover, a restored backup), the
     * table is found empty afterwards and a signature created before that moment is refused as a replay.
     */
    @Override
    public java.util.Optional<Admission> admit(Fence presented, Nonce nonce) {
        try (Connection connection = (transactional == null ? dataSource : transactional).getConnection()) {
            if (transactional == null || connection.getAutoCommit()) {
                return sql.admitEachSigned(connection, nonceTable, presented, java.util.List.of(nonce)).get(0);
            }
            if (!firstUseApart(nonce)) {
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(sql.admitInTransaction(connection, presented));
        } catch (SQLException e) {
            throw unavailable(presented, e);
        }
    }

    /**
     * Request-signed admissions of one fence that arrived together: on PostgreSQL one statement for the group's
     * nonces and its admission; elsewhere, and joining an open transaction, one {@link #admit(Fence, String,
     * java.time.Instant)} per nonce.
     */
    @Override
    public java.util.List<java.util.Optional<Admission>> admitEach(Fence presented, java.util.List<Nonce> nonces) {
        if (nonces.size() <= 1 || transactional != null) {
            return IdempotentAdmissionStore.super.admitEach(presented, nonces);
        }
        try (Connection connection = dataSource.getConnection()) {
            return sql.admitEachSigned(connection, nonceTable, presented, nonces);
        } catch (SQLException e) {
            throw unavailable(presented, e);
        }
    }

    private static FenceguardException unavailable(Fence presented, SQLException e) {
        return new FenceguardException("high-water store unavailable for '" + presented.resource() + "': "
                + e.getMessage(), presented.resource(), presented.token(), e);
    }

    /**
     * On PostgreSQL, outside a transaction: the nonce, the admission and, when admitted, the key's claim in one
     * statement (a claim it cannot decide, as one older than {@link #IN_PROGRESS_TIMEOUT} to take over, is made by
     * {@link #claim} after it). Elsewhere, and joining an open transaction, the calls one after another.
     */
    @Override
    public ClaimedAdmission admitClaiming(Fence presented, Nonce nonce, String key, String fingerprint) {
        if (transactional != null) {
            return IdempotentAdmissionStore.super.admitClaiming(presented, nonce, key, fingerprint);
        }
        HighWaterSql.ClaimedRow row;
        try (Connection connection = dataSource.getConnection()) {
            purgeClaimsNowAndThen(connection);
            row = sql.admitClaiming(connection, nonceTable, idempotencyTable, presented, nonce, key, fingerprint);
        } catch (SQLException e) {
            throw unavailable(presented, e);
        }
        if (row == null) {
            return IdempotentAdmissionStore.super.admitClaiming(presented, nonce, key, fingerprint);
        }
        if (row.replayed()) {
            return ClaimedAdmission.replayed();
        }
        Admission admission = row.admission();
        if (!admission.admitted()) {
            return new ClaimedAdmission(admission, null);
        }
        Claim known = row.claimed() ? Claim.first()
                : row.first() == null ? null : answer(row.first(), fingerprint, false, java.time.Instant.now());
        return new ClaimedAdmission(admission, known != null ? known : claim(presented, key, fingerprint));
    }

    /**
     * What a key's existing claim answers a request with {@code fingerprint}; {@code null} when an unanswered claim
     * made outside a transaction is older than {@link #IN_PROGRESS_TIMEOUT}, so that a retry may take it over.
     */
    private static Claim answer(HighWaterSql.IdempotencyRow first, String fingerprint, boolean inTransaction,
            java.time.Instant now) {
        if (!first.fingerprint().equals(fingerprint)) {
            return Claim.otherRequest();
        }
        if (first.status() != null) {
            return Claim.completed(new RecordedResponse(first.status(), first.contentType(),
                    first.body() == null ? new byte[0] : first.body()));
        }
        // A committed claim without a response was made outside a transaction by a request that never completed
        // (its process died): after the timeout a retry takes it over.
        return inTransaction || first.created().isAfter(now.minus(IN_PROGRESS_TIMEOUT)) ? Claim.inProgress() : null;
    }

    /** Deletes claims past their retention on one call in 256, outside transactions. */
    private void purgeClaimsNowAndThen(Connection connection) throws SQLException {
        if (java.util.concurrent.ThreadLocalRandom.current().nextInt(256) == 0) {
            sql.purgeIdempotencyClaims(connection, idempotencyTable, java.time.Instant.now().minus(retention));
        }
    }

    @Override
    public Claim claim(Fence presented, String key, String fingerprint) {
        try (Connection connection = (transactional == null ? dataSource : transactional).getConnection()) {
            boolean inTransaction = !connection.getAutoCommit();
            java.time.Instant now = java.time.Instant.now();
            if (!inTransaction) {
                purgeClaimsNowAndThen(connection);
            } else if (dataSource != transactional) {
                // Claims joining the handler's transaction purge on a connection of their own, or never at all.
                try (Connection own = dataSource.getConnection()) {
                    purgeClaimsNowAndThen(own);
                }
            }
            for (int attempt = 0; attempt < 3; attempt++) {
                if (sql.insertIdempotencyClaim(connection, idempotencyTable, presented, key, fingerprint)) {
                    return Claim.first();
                }
                HighWaterSql.IdempotencyRow first = sql.readIdempotencyClaim(connection, idempotencyTable,
                        presented.resource().value(), key);
                if (first == null) {
                    continue;   // abandoned in between: claim again
                }
                Claim answer = answer(first, fingerprint, inTransaction, now);
                if (answer != null) {
                    return answer;
                }
                if (sql.deleteIdempotencyClaim(connection, idempotencyTable, presented.resource().value(), key,
                        now.minus(IN_PROGRESS_TIMEOUT)) == 0) {
                    return Claim.inProgress();
                }
            }
            return Claim.inProgress();
        } catch (SQLException e) {
            throw new FenceguardException("idempotency store unavailable for '" + presented.resource() + "': "
                    + e.getMessage(), presented.resource(), presented.token(), e);
        }
    }

    @Override
    public void complete(ResourceName resource, String key, RecordedResponse response) {
        try (Connection connection = (transactional == null ? dataSource : transactional).getConnection()) {
            sql.completeIdempotencyClaim(connection, idempotencyTable, resource.value(), key, response.status(),
                    response.contentType(), response.body());
        } catch (SQLException e) {
            throw new FenceguardException("idempotency store unavailable for '" + resource + "': " + e.getMessage(),
                    resource, null, e);
        }
    }

    @Override
    public void abandon(ResourceName resource, String key) {
        try (Connection connection = (transactional == null ? dataSource : transactional).getConnection()) {
            sql.deleteIdempotencyClaim(connection, idempotencyTable, resource.value(), key,
                    java.time.Instant.now().plusSeconds(1));
        } catch (SQLException e) {
            throw new FenceguardException("idempotency store unavailable for '" + resource + "': " + e.getMessage(),
                    resource, null, e);
        }
    }

    @Override
    public String toString() {
        return "JdbcHighWaterStore[" + sql + "]";
    }
}
