package io.fenceguard.reactor.webflux.r2dbc;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.IdempotentAdmissionStore;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.NonBlockingIdempotencyStore;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.jdbc.admission.PostgresAdmissionStatements;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * High-water marks, request-signature nonces and idempotency keys on PostgreSQL through R2DBC, in the JDBC store's
 * tables ({@link JdbcHighWaterStore#DEFAULT_TABLE}, {@link JdbcHighWaterStore#NONCE_TABLE} and
 * {@link JdbcHighWaterStore#IDEMPOTENCY_TABLE}, created by the {@code db} module's migrations) with its statements
 * ({@link PostgresAdmissionStatements}): what the WebFlux filter needs to join the admission to the handler's R2DBC transaction
 * ({@link R2dbcAdmissionTransaction}). Within {@link #joining}, the mark's conditional upsert and the nonce's insert
 * are statements of the given connection: they commit or roll back with the handler's writes, and the mark's row
 * stays locked until then (handlers of one resource run one at a time). Outside, each admission takes a connection
 * of its own and commits at once.
 *
 * <p>Idempotency keys as {@link JdbcHighWaterStore} keeps them on PostgreSQL, so that JDBC and R2DBC instances share
 * claims and recorded responses: a keyed request's nonce, admission and key's claim in one statement
 * ({@link #admitClaiming}); a claim left unanswered outside a transaction for {@link JdbcHighWaterStore#IN_PROGRESS_TIMEOUT}
 * taken over by a retry; responses kept for {@link #withIdempotencyRetention} and purged now and then.
 *
 * <p>The calls of the {@code IdempotentAdmissionStore} and {@code NonceStore} interfaces block (at most
 * {@link #CALL_TIMEOUT} each): make them off the event loop. {@link #nonBlocking()} answers the same calls, and its
 * {@link NonBlockingAdmissionStore#idempotentAdmissions()} the idempotency calls, without blocking, with the same
 * statements, for callers on the event loop: the WebFlux filter's.
 * Fails closed: when PostgreSQL cannot answer, a {@link FenceguardException} is thrown and the request is refused.
 */
public final class R2dbcHighWaterStore implements IdempotentAdmissionStore, NonceStore {

    /** The longest wait for one statement's answer. */
    public static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    private static final Logger log = LoggerFactory.getLogger(R2dbcHighWaterStore.class);

    private final ConnectionFactory connectionFactory;
    private final R2dbcStatements sql;
    private final Duration retention;
    /** The connection of the transaction the calls on this thread join, within {@link #joining}. */
    private final ThreadLocal<Connection> joined = new ThreadLocal<>();
    private final NonBlocking nonBlocking = new NonBlocking();
    /**
     * Whether the nonce-since table is there and unlogged (then every statement with a nonce checks it), looked for at
     * the first statement with a nonce; {@code null} until then.
     */
    private volatile Boolean nonceSinceChecked;

    private R2dbcHighWaterStore(ConnectionFactory connectionFactory, R2dbcStatements sql, Duration retention) {
        this.connectionFactory = connectionFactory;
        this.sql = sql;
        this.retention = retention;
    }

    /** The store on {@code table} (optionally schema-qualified; the nonce and idempotency tables next to it) of {@code connectionFactory}. */
    public static R2dbcHighWaterStore of(ConnectionFactory connectionFactory, String table) {
        Objects.requireNonNull(connectionFactory, "connectionFactory");
        return new R2dbcHighWaterStore(connectionFactory, R2dbcStatements.on(table), JdbcHighWaterStore.RETENTION);
    }

    /**
     * This store keeping recorded responses for {@code retention} (default {@link JdbcHighWaterStore#RETENTION}), as
     * {@link JdbcHighWaterStore#withIdempotencyRetention}: at least {@link JdbcHighWaterStore#IN_PROGRESS_TIMEOUT}.
     */
    public R2dbcHighWaterStore withIdempotencyRetention(Duration retention) {
        return new R2dbcHighWaterStore(connectionFactory, sql, io.fenceguard.admission.IdempotencyRetention.checked(retention));
    }

    /** How long recorded responses answer retries. */
    public Duration idempotencyRetention() {
        return retention;
    }

    public static R2dbcHighWaterStore of(ConnectionFactory connectionFactory) {
        return of(connectionFactory, JdbcHighWaterStore.DEFAULT_TABLE);
    }

    /** The factory whose transactions the admissions join: the handler's. */
    public ConnectionFactory connectionFactory() {
        return connectionFactory;
    }

    /** Runs {@code work} with this thread's calls to this store made on {@code connection}, in its transaction. */
    public <T> T joining(Connection connection, Callable<T> work) throws Exception {
        Objects.requireNonNull(connection, "connection");
        Connection before = joined.get();
        joined.set(connection);
        try {
            return work.call();
        } finally {
            if (before == null) {
                joined.remove();
            } else {
                joined.set(before);
            }
        }
    }

    @Override
    public Admission admit(Fence presented) {
        return call(highWater(presented), connection -> mark(connection, presented));
    }

    @Override
    public Optional<Admission> admit(Fence presented, String nonce, Instant expires) {
        return admit(presented, new Nonce(nonce, expires));
    }

    /** As {@code admit(presented, nonce, expires)}, the signature's creation time checked as the JDBC store checks it. */
    @Override
    public Optional<Admission> admit(Fence presented, Nonce nonce) {
        Objects.requireNonNull(nonce, "nonce");
        return call(highWater(presented), connection -> markIfFresh(connection, presented, nonce));
    }

    @Override
    public boolean firstUse(String nonce, Instant expires) {
        return call(highWater(null), connection -> fresh(connection, nonce, expires));
    }

    /**
     * The nonce ({@code null}: none), the admission and, when the token is admitted, the key's claim in the JDBC
     * store's one statement; a claim it cannot decide (as one older than
     * {@link JdbcHighWaterStore#IN_PROGRESS_TIMEOUT} to take over) is made by {@link #claim} after it.
     */
    @Override
    public ClaimedAdmission admitClaiming(Fence presented, Nonce nonce, String key, String fingerprint) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        return call(highWater(presented), connection -> admitClaiming(connection, presented, nonce, key, fingerprint));
    }

    @Override
    public Claim claim(Fence presented, String key, String fingerprint) {
        return call(idempotency(presented.resource(), presented.token()),
                connection -> claim(connection, presented, key, fingerprint));
    }

    @Override
    public void complete(ResourceName resource, String key, RecordedResponse response) {
        Objects.requireNonNull(response, "response");
        call(idempotency(resource, null), connection -> complete(connection, resource, key, response));
    }

    @Override
    public void abandon(ResourceName resource, String key) {
        call(idempotency(resource, null), connection -> abandon(connection, resource, key));
    }

    /**
     * The same calls without blocking, for the event loop: each on a connection of its own that commits at once (an
     * answer as a stage has no Reactor Context, so no transaction of the caller's to join: the filter joins the
     * handler's transaction through {@link #joining} instead). Each answers within {@link #CALL_TIMEOUT}
     * or fails with a {@link FenceguardException}. Its {@link NonBlockingAdmissionStore#idempotentAdmissions()} are
     * this store's idempotency calls, on the same terms.
     */
    @Override
    public Optional<NonBlockingAdmissionStore> nonBlocking() {
        return Optional.of(nonBlocking);
    }

    private final class NonBlocking implements NonBlockingAdmissionStore, NonBlockingIdempotencyStore {

        @Override
        public CompletionStage<Admission> admit(Fence presented) {
            Objects.requireNonNull(presented, "presented");
            return answer(highWater(presented), connection -> mark(connection, presented));
        }

        @Override
        public CompletionStage<Optional<Admission>> admit(Fence presented, SignedAdmissionStore.Nonce nonce) {
            Objects.requireNonNull(presented, "presented");
            Objects.requireNonNull(nonce, "nonce");
            return answer(highWater(presented), connection -> markIfFresh(connection, presented, nonce));
        }

        @Override
        public CompletionStage<Boolean> firstUse(String nonce, Instant expires) {
            Objects.requireNonNull(nonce, "nonce");
            Objects.requireNonNull(expires, "expires");
            return answer(highWater(null), connection -> fresh(connection, nonce, expires));
        }

        @Override
        public Optional<NonBlockingIdempotencyStore> idempotentAdmissions() {
            return Optional.of(this);
        }

        @Override
        public CompletionStage<ClaimedAdmission> admitClaiming(Fence presented, SignedAdmissionStore.Nonce nonce,
                String key, String fingerprint) {
            Objects.requireNonNull(presented, "presented");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(fingerprint, "fingerprint");
            return answer(highWater(presented), connection -> R2dbcHighWaterStore.this.admitClaiming(connection,
                    presented, nonce, key, fingerprint));
        }

        @Override
        public CompletionStage<Void> complete(ResourceName resource, String key, RecordedResponse response) {
            Objects.requireNonNull(resource, "resource");
            Objects.requireNonNull(response, "response");
            return answer(idempotency(resource, null), connection -> R2dbcHighWaterStore.this.complete(connection,
                    resource, key, response));
        }

        @Override
        public CompletionStage<Void> abandon(ResourceName resource, String key) {
            Objects.requireNonNull(resource, "resource");
            return answer(idempotency(resource, null),
                    connection -> R2dbcHighWaterStore.this.abandon(connection, resource, key));
        }

        /**
         * {@code statement} on a connection of its own; a failure other than a {@link FenceguardException} as
         * {@code unavailable} names it.
         */
        private <T> CompletionStage<T> answer(Function<Throwable, FenceguardException> unavailable,
                Function<Connection, Mono<T>> statement) {
            return ownConnection(statement).timeout(CALL_TIMEOUT)
                    .onErrorMap(e -> !(e instanceof FenceguardException), unavailable)
                    .toFuture();
        }

        @Override
        public String toString() {
            return "non-blocking " + R2dbcHighWaterStore.this;
        }
    }

    /**
     * The nonce and, when it was new, the admission, in the JDBC store's one statement: with the nonce-since table
     * there, a signature that may predate a loss of unflushed nonces is a replay, and a statement that commits by
     * itself does not wait for its WAL flush unless it claimed the mark (as the JDBC store's).
     */
    private Mono<Optional<Admission>> markIfFresh(Connection connection, Fence presented, Nonce nonce) {
        boolean ownCommit = connection.isAutoCommit();
        String resource = presented.resource().value();
        long token = presented.token().value();
        return sinceChecked(connection).flatMap(checked -> {
            java.util.List<Object> values = nonceValues(nonce, checked);
            values.addAll(java.util.List.of(resource, resource, token, token));
            String text = sql.signedMark()[!checked ? 0 : ownCommit ? 2 : 1];
            return purgeNoncesNowAndThen(connection, !ownCommit)
                    .then(rows(statement(connection, text, values.toArray()), row -> new Long[] {row.get(0, Long.class),
                            row.get(1, Long.class), row.get(2, Long.class)}).next());
        }).flatMap(row -> {
            if (row[0] == 0) {
                return Mono.just(Optional.<Admission>empty());
            }
            Admission decided = decided(presented, row[1], row[2]);
            return (decided != null ? Mono.just(decided) : current(connection, presented)).map(Optional::of);
        });
    }

    /** A nonce's first use; its signature's creation unknown, taken as early as its expiry allows. */
    private Mono<Boolean> fresh(Connection connection, String nonce, Instant expires) {
        Nonce known = new Nonce(nonce, expires);
        return sinceChecked(connection).flatMap(checked -> purgeNoncesNowAndThen(connection, !connection.isAutoCommit())
                .then(rows(statement(connection, sql.firstUse()[checked ? 1 : 0], nonceValues(known, checked).toArray()),
                        row -> row.get(0, Long.class)).next()))
                .map(count -> count == 1);
    }

    /** The nonce's parameters: value, expiry and, when the nonce-since table is checked, the creation in epoch seconds. */
    private static java.util.List<Object> nonceValues(Nonce nonce, boolean sinceChecked) {
        java.util.List<Object> values = new java.util.ArrayList<>(16);
        values.add(nonce.value());
        values.add(local(nonce.expires()));
        if (sinceChecked) {
            values.add(nonce.created().getEpochSecond());
        }
        return values;
    }

    /**
     * Whether the JDBC store's nonce-since table is there and unlogged: asked once. When it is, JDBC instances on these
     * tables may commit nonces without waiting for their flush, and this store's nonces must be checked against it.
     */
    private Mono<Boolean> sinceChecked(Connection connection) {
        Boolean known = nonceSinceChecked;
        if (known != null) {
            return Mono.just(known);
        }
        return rows(statement(connection, sql.unlogged(), sql.nonceSinceTable()), row -> row.get(0, String.class))
                .next()
                .map("u"::equals)
                .defaultIfEmpty(false)
                .doOnNext(there -> {
                    if (nonceSinceChecked == null && !there) {
                        log.info("high-water store on {}: no unlogged table {} (fenceguard's migration V7), so every "
                                + "request-signed admission waits for its own WAL flush", sql.table(), sql.nonceSinceTable());
                    }
                    nonceSinceChecked = there;
                });
    }

    private Mono<Admission> mark(Connection connection, Fence presented) {
        String resource = presented.resource().value();
        long token = presented.token().value();
        return rows(statement(connection, sql.mark(), resource, resource, token, token),
                        row -> Optional.ofNullable(decided(presented, row.get(0, Long.class), row.get(1, Long.class))))
                .next()
                .flatMap(decided -> decided.map(Mono::just).orElseGet(() -> current(connection, presented)));
    }

    /**
     * The admission from the upsert's claimed token and snapshot mark, or {@code null} when the snapshot predates a
     * concurrent claim and the mark as it is now must decide.
     */
    private static Admission decided(Fence presented, Long claimed, Long previous) {
        if (claimed != null) {
            return Admission.claimed(presented);
        }
        if (previous != null && !presented.token().isNewerThan(FencingToken.of(previous))) {
            return Admission.of(presented, FencingToken.of(previous));
        }
        return null;
    }

    private Mono<Admission> current(Connection connection, Fence presented) {
        return rows(statement(connection, sql.current(), presented.resource().value()), row -> row.get(0, Long.class))
                .next()
                .map(token -> Admission.of(presented, FencingToken.of(token)))
                .switchIfEmpty(Mono.error(() -> new IllegalStateException("high-water row for '" + presented.resource()
                        + "' vanished; refusing")));
    }

    /** What the one statement of {@link #admitClaiming} answered. */
    private record ClaimingRow(boolean replayed, Long claimed, Long previous, boolean keyed, KeyRow first) {
    }

    /** A key's row: fingerprint, when claimed, and the recorded response ({@code status} null while in progress). */
    private record KeyRow(String fingerprint, Instant created, Integer status, String contentType, byte[] body) {

        static KeyRow of(Readable row, int first) {
            String fingerprint = row.get(first, String.class);
            return fingerprint == null ? null : new KeyRow(fingerprint, instant(row.get(first + 1, LocalDateTime.class)),
                    row.get(first + 2, Integer.class), row.get(first + 3, String.class), row.get(first + 4, byte[].class));
        }
    }

    private Mono<ClaimedAdmission> admitClaiming(Connection connection, Fence presented, Nonce nonce, String key,
            String fingerprint) {
        boolean inTransaction = !connection.isAutoCommit();
        String resource = presented.resource().value();
        long token = presented.token().value();
        // A keyed statement's commit waits for its flush (the claim must outlive a crash); its nonce is checked as any.
        Mono<Boolean> checked = nonce == null ? Mono.just(false) : sinceChecked(connection);
        Mono<ClaimingRow> decided = checked.flatMap(sinceChecked -> {
            java.util.List<Object> values = nonce == null ? new java.util.ArrayList<>() : nonceValues(nonce, sinceChecked);
            values.addAll(java.util.List.of(resource, resource, token, token, resource, key, fingerprint, token,
                    local(Instant.now()), token, resource, key));
            String text = nonce == null ? sql.claiming() : sql.signedClaiming()[sinceChecked ? 1 : 0];
            Mono<Void> purged = nonce == null ? Mono.empty() : purgeNoncesNowAndThen(connection, inTransaction);
            return purged.then(rows(statement(connection, text, values.toArray()),
                    row -> new ClaimingRow(row.get(0, Long.class) == 0, row.get(1, Long.class), row.get(2, Long.class),
                            row.get(3, Long.class) == 1, KeyRow.of(row, 4))).next());
        });
        return purgeNowAndThen(connection, inTransaction).then(decided).flatMap(row -> {
            if (row.replayed()) {
                return Mono.just(ClaimedAdmission.replayed());
            }
            Admission admission = decided(presented, row.claimed(), row.previous());
            if (admission == null) {
                // The snapshot predates a concurrent claim: the mark as it is now decides, and the key is claimed apart.
                return current(connection, presented).flatMap(current -> claimedIfAdmitted(connection, current,
                        presented, key, fingerprint));
            }
            if (!admission.admitted()) {
                return Mono.just(new ClaimedAdmission(admission, null));
            }
            Claim known = row.keyed() ? Claim.first()
                    : row.first() == null ? null : answer(row.first(), fingerprint, inTransaction, Instant.now());
            return known != null ? Mono.just(new ClaimedAdmission(admission, known))
                    : claim(connection, presented, key, fingerprint).map(claim -> new ClaimedAdmission(admission, claim));
        });
    }

    private Mono<ClaimedAdmission> claimedIfAdmitted(Connection connection, Admission admission, Fence presented,
            String key, String fingerprint) {
        return !admission.admitted() ? Mono.just(new ClaimedAdmission(admission, null))
                : claim(connection, presented, key, fingerprint).map(claim -> new ClaimedAdmission(admission, claim));
    }

    /**
     * What a key's existing claim answers a request with {@code fingerprint}, as the JDBC store's; {@code null} when
     * an unanswered claim made outside a transaction is older than {@link JdbcHighWaterStore#IN_PROGRESS_TIMEOUT}, so
     * that a retry may take it over.
     */
    private static Claim answer(KeyRow first, String fingerprint, boolean inTransaction, Instant now) {
        if (!first.fingerprint().equals(fingerprint)) {
            return Claim.otherRequest();
        }
        if (first.status() != null) {
            return Claim.completed(new RecordedResponse(first.status(), first.contentType(),
                    first.body() == null ? new byte[0] : first.body()));
        }
        return inTransaction || first.created().isAfter(now.minus(JdbcHighWaterStore.IN_PROGRESS_TIMEOUT))
                ? Claim.inProgress() : null;
    }

    /** The key's claim, as the JDBC store's: inserted, else answered from the first one's row, or taken over. */
    private Mono<Claim> claim(Connection connection, Fence presented, String key, String fingerprint) {
        boolean inTransaction = !connection.isAutoCommit();
        Instant now = Instant.now();
        return purgeNowAndThen(connection, inTransaction)
                .then(claimAttempt(connection, presented, key, fingerprint, inTransaction, now, 0));
    }

    private Mono<Claim> claimAttempt(Connection connection, Fence presented, String key, String fingerprint,
            boolean inTransaction, Instant now, int attempt) {
        if (attempt == 3) {
            return Mono.just(Claim.inProgress());
        }
        String resource = presented.resource().value();
        return updated(statement(connection, sql.insertClaim(), resource, key, fingerprint, presented.token().value(),
                local(Instant.now()))).flatMap(inserted -> {
            if (inserted == 1) {
                return Mono.just(Claim.first());
            }
            return rows(statement(connection, sql.readClaim(), resource, key), row -> KeyRow.of(row, 0)).next()
                    .map(Optional::of).defaultIfEmpty(Optional.empty())
                    .flatMap(first -> {
                        if (first.isEmpty()) {
                            // abandoned in between: claim again
                            return claimAttempt(connection, presented, key, fingerprint, inTransaction, now, attempt + 1);
                        }
                        Claim answer = answer(first.get(), fingerprint, inTransaction, now);
                        if (answer != null) {
                            return Mono.just(answer);
                        }
                        return updated(statement(connection, sql.deleteClaim(), resource, key,
                                local(now.minus(JdbcHighWaterStore.IN_PROGRESS_TIMEOUT))))
                                .flatMap(deleted -> deleted == 0 ? Mono.just(Claim.inProgress())
                                        : claimAttempt(connection, presented, key, fingerprint, inTransaction, now,
                                                attempt + 1));
                    });
        });
    }

    private Mono<Void> complete(Connection connection, ResourceName resource, String key, RecordedResponse response) {
        return updated(statement(connection, sql.completeClaim(), response.status(),
                response.contentType() == null ? new NullOf(String.class) : response.contentType(),
                response.body() == null ? new NullOf(byte[].class) : response.body(), resource.value(), key)).then();
    }

    private Mono<Void> abandon(Connection connection, ResourceName resource, String key) {
        return updated(statement(connection, sql.deleteClaim(), resource.value(), key,
                local(Instant.now().plusSeconds(1)))).then();
    }

    /** Deletes claims past their retention on one call in 256, outside transactions, as the JDBC store does. */
    private Mono<Void> purgeNowAndThen(Connection connection, boolean inTransaction) {
        return nowAndThen(connection, inTransaction, sql.purgeClaims(), Instant.now().minus(retention));
    }

    /** Deletes expired nonces on one call in 256, outside transactions, as the JDBC store does. */
    private Mono<Void> purgeNoncesNowAndThen(Connection connection, boolean inTransaction) {
        return nowAndThen(connection, inTransaction, sql.purgeNonces(), Instant.now());
    }

    /** {@code purge} of the rows older than {@code before} on one call in 256, outside transactions. */
    private static Mono<Void> nowAndThen(Connection connection, boolean inTransaction, String purge, Instant before) {
        if (inTransaction || ThreadLocalRandom.current().nextInt(256) != 0) {
            return Mono.empty();
        }
        return updated(statement(connection, purge, local(before))).then();
    }

    /** A null of {@code type} to bind. */
    private record NullOf(Class<?> type) {
    }

    /** {@code text} with {@code values} bound to its markers in order. */
    private static Statement statement(Connection connection, String text, Object... values) {
        Statement statement = connection.createStatement(text);
        for (int i = 0; i < values.length; i++) {
            if (values[i] instanceof NullOf nullOf) {
                statement.bindNull(i, nullOf.type());
            } else {
                statement.bind(i, values[i]);
            }
        }
        return statement;
    }

    private static <T> Flux<T> rows(Statement statement, Function<Readable, T> row) {
        return Flux.from(statement.execute()).concatMap(result -> result.map(row));
    }

    private static Mono<Long> updated(Statement statement) {
        return Flux.from(statement.execute()).concatMap(result -> result.getRowsUpdated()).reduce(0L, Long::sum);
    }

    /** A TIMESTAMP column's value, in the application's time zone as the JDBC store binds it. */
    private static LocalDateTime local(Instant instant) {
        return LocalDateTime.ofInstant(instant, ZoneId.systemDefault());
    }

    private static Instant instant(LocalDateTime local) {
        return local.atZone(ZoneId.systemDefault()).toInstant();
    }

    /**
     * {@code statement} on the joined connection, else on a connection of its own that commits at once; a failure as
     * {@code unavailable} names it.
     */
    private <T> T call(Function<Throwable, FenceguardException> unavailable, Function<Connection, Mono<T>> statement) {
        try {
            Connection connection = joined.get();
            Mono<T> answer = connection != null ? statement.apply(connection) : ownConnection(statement);
            return answer.block(CALL_TIMEOUT);
        } catch (RuntimeException e) {
            throw unavailable.apply(e);
        }
    }

    /** {@code statement} on a connection of its own, which commits at once and is closed after. */
    private <T> Mono<T> ownConnection(Function<Connection, Mono<T>> statement) {
        return Mono.usingWhen(connectionFactory.create(), statement, Connection::close);
    }

    /** A failure as the high-water store being unavailable for {@code presented} ({@code null}: none). */
    private static Function<Throwable, FenceguardException> highWater(Fence presented) {
        return presented == null ? cause -> unavailable("high-water store", null, null, cause)
                : cause -> unavailable("high-water store", presented.resource(), presented.token(), cause);
    }

    /** A failure as the idempotency store being unavailable for {@code resource} ({@code null}: none) and {@code token}. */
    private static Function<Throwable, FenceguardException> idempotency(ResourceName resource, FencingToken token) {
        return cause -> unavailable("idempotency store", resource, token, cause);
    }

    /** {@code what} (the high-water or idempotency store) unavailable for {@code resource} ({@code null}: none). */
    private static FenceguardException unavailable(String what, ResourceName resource, FencingToken token,
            Throwable cause) {
        String reason = cause instanceof java.util.concurrent.TimeoutException
                ? "no answer within " + CALL_TIMEOUT.toMillis() + " ms" : cause.getMessage();
        return new FenceguardException(what + " unavailable" + (resource == null ? "" : " for '" + resource + "'")
                + ": " + reason, resource, token, cause);
    }

    @Override
    public String toString() {
        return "R2dbcHighWaterStore[" + sql.table() + "]";
    }
}
