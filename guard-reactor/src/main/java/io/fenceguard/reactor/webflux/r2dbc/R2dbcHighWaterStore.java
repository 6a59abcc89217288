package io.fenceguard.reactor.webflux.r2dbc;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.springframework.r2dbc.core.DatabaseClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * High-water marks and request-signature nonces on PostgreSQL through R2DBC, in the JDBC store's tables
 * ({@link JdbcHighWaterStore#DEFAULT_TABLE} and {@link JdbcHighWaterStore#NONCE_TABLE}, created by the {@code db}
 * module's migrations): what the WebFlux filter needs to join the admission to the handler's R2DBC transaction
 * ({@link R2dbcAdmissionTransaction}). Within {@link #joining}, the mark's conditional upsert and the nonce's insert
 * are statements of the given connection: they commit or roll back with the handler's writes, and the mark's row
 * stays locked until then (handlers of one resource run one at a time). Outside, each admission takes a connection
 * of its own and commits at once.
 *
 * <p>The calls of the {@code SignedAdmissionStore} and {@code NonceStore} interfaces block (at most
 * {@link #CALL_TIMEOUT} each): make them off the event loop. {@link #nonBlocking()} answers the same calls without
 * blocking, with the same statements, for callers on the event loop: the WebFlux filter's.
 * Fails closed: when PostgreSQL cannot answer, a {@link FenceguardException} is thrown and the request is refused.
 * Idempotency keys are not kept here: use the JDBC or Redis store for them.
 */
public final class R2dbcHighWaterStore implements SignedAdmissionStore, NonceStore {

    /** The longest wait for one statement's answer. */
    public static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final ConnectionFactory connectionFactory;
    private final String table;
    private final String upsert;
    private final String nonceInsert;
    /** The connection of the transaction the calls on this thread join, within {@link #joining}. */
    private final ThreadLocal<Connection> joined = new ThreadLocal<>();
    private final NonBlockingAdmissionStore nonBlocking = new NonBlocking();
    private final DatabaseClient client;

    private R2dbcHighWaterStore(ConnectionFactory connectionFactory, String table) {
        this.connectionFactory = connectionFactory;
        this.client = DatabaseClient.create(connectionFactory);
        this.table = table;
        int dot = table.indexOf('.');
        String nonceTable = (dot < 0 ? "" : table.substring(0, dot + 1)) + JdbcHighWaterStore.NONCE_TABLE;
        // As the JDBC store's: a snapshot of the mark, and the upsert that only replaces a lower token.
        this.upsert = "WITH previous AS (SELECT token FROM " + table + " WHERE resource = $1), "
                + "claimed AS (INSERT INTO " + table + " AS hw (resource, token) "
                + "SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM previous WHERE token >= $2) "
                + "ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, updated_at = CURRENT_TIMESTAMP "
                + "WHERE hw.token < EXCLUDED.token RETURNING token) "
                + "SELECT (SELECT token FROM claimed) AS claimed, (SELECT token FROM previous) AS previous";
        this.nonceInsert = "INSERT INTO " + nonceTable + " (nonce, expires_at) VALUES ($1, $2) "
                + "ON CONFLICT (nonce) DO NOTHING RETURNING nonce";
    }

    /** The store on {@code table} (optionally schema-qualified; the nonce table next to it) of {@code connectionFactory}. */
    public static R2dbcHighWaterStore of(ConnectionFactory connectionFactory, String table) {
        Objects.requireNonNull(connectionFactory, "connectionFactory");
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("a high-water table is an SQL identifier, optionally schema-qualified, got '"
                    + table + "'");
        }
        return new R2dbcHighWaterStore(connectionFactory, table);
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
        return call(presented, connection -> mark(connection, presented));
    }

    @Override
    public Optional<Admission> admit(Fence presented, String nonce, Instant expires) {
        return call(presented, connection -> markIfFresh(connection, presented, nonce, expires));
    }

    @Override
    public boolean firstUse(String nonce, Instant expires) {
        return call(null, connection -> fresh(connection, nonce, expires));
    }

    /**
     * The same calls without blocking, for the event loop: each on the connection of the Spring transaction in the
     * subscriber's Reactor Context (committing or rolling back with it), else on a connection of its own that
     * commits at once (a stage has no Context: outside any transaction). Each answers within {@link #CALL_TIMEOUT}
     * or fails with a {@link FenceguardException}.
     */
    @Override
    public Optional<NonBlockingAdmissionStore> nonBlocking() {
        return Optional.of(nonBlocking);
    }

    private final class NonBlocking implements NonBlockingAdmissionStore {

        @Override
        public CompletionStage<Admission> admit(Fence presented) {
            Objects.requireNonNull(presented, "presented");
            return answer(presented, connection -> mark(connection, presented));
        }

        @Override
        public CompletionStage<Optional<Admission>> admit(Fence presented, SignedAdmissionStore.Nonce nonce) {
            Objects.requireNonNull(presented, "presented");
            Objects.requireNonNull(nonce, "nonce");
            return answer(presented, connection -> markIfFresh(connection, presented, nonce.value(), nonce.expires()));
        }

        @Override
        public CompletionStage<Boolean> firstUse(String nonce, Instant expires) {
            Objects.requireNonNull(nonce, "nonce");
            Objects.requireNonNull(expires, "expires");
            return answer(null, connection -> fresh(connection, nonce, expires));
        }

        private <T> CompletionStage<T> answer(Fence presented, Function<Connection, Mono<T>> statement) {
            // Spring's client finds the transaction's connection in the Context, or opens and closes one.
            return client.inConnection(statement).timeout(CALL_TIMEOUT)
                    .onErrorMap(e -> !(e instanceof FenceguardException), e -> unavailable(presented, e))
                    .toFuture();
        }

        @Override
        public String toString() {
            return "non-blocking " + R2dbcHighWaterStore.this;
        }
    }

    private Mono<Optional<Admission>> markIfFresh(Connection connection, Fence presented, String nonce, Instant expires) {
        return fresh(connection, nonce, expires)
                .flatMap(fresh -> fresh ? mark(connection, presented).map(Optional::of) : Mono.just(Optional.empty()));
    }

    private Mono<Boolean> fresh(Connection connection, String nonce, Instant expires) {
        return Flux.from(connection.createStatement(nonceInsert).bind("$1", nonce)
                        .bind("$2", LocalDateTime.ofInstant(expires, ZoneId.systemDefault())).execute())
                .concatMap(result -> result.map((row, meta) -> row.get(0, String.class)))
                .hasElements();
    }

    private Mono<Admission> mark(Connection connection, Fence presented) {
        return Flux.from(connection.createStatement(upsert).bind("$1", presented.resource().value())
                        .bind("$2", presented.token().value()).execute())
                .concatMap(result -> result.map((row, meta) -> new Long[] {row.get("claimed", Long.class),
                        row.get("previous", Long.class)}))
                .next()
                .flatMap(row -> {
                    if (row[0] != null) {
                        return Mono.just(Admission.claimed(presented));
                    }
                    if (row[1] != null && !presented.token().isNewerThan(FencingToken.of(row[1]))) {
                        return Mono.just(Admission.of(presented, FencingToken.of(row[1])));
                    }
                    // The snapshot predates a concurrent claim: the mark as it is now decides.
                    return current(connection, presented);
                });
    }

    private Mono<Admission> current(Connection connection, Fence presented) {
        return Flux.from(connection.createStatement("SELECT token FROM " + table + " WHERE resource = $1")
                        .bind("$1", presented.resource().value()).execute())
                .concatMap(result -> result.map((row, meta) -> row.get(0, Long.class)))
                .next()
                .map(token -> Admission.of(presented, FencingToken.of(token)))
                .switchIfEmpty(Mono.error(() -> new IllegalStateException("high-water row for '" + presented.resource()
                        + "' vanished; refusing")));
    }

    /** {@code statement} on the joined connection, else on a connection of its own that commits at once. */
    private <T> T call(Fence presented, Function<Connection, Mono<T>> statement) {
        Connection connection = joined.get();
        Mono<T> answer = connection != null ? statement.apply(connection)
                : Mono.usingWhen(connectionFactory.create(), statement, Connection::close);
        try {
            return answer.block(CALL_TIMEOUT);
        } catch (RuntimeException e) {
            throw unavailable(presented, e);
        }
    }

    private static FenceguardException unavailable(Fence presented, Throwable cause) {
        String reason = cause instanceof java.util.concurrent.TimeoutException
                ? "no answer within " + CALL_TIMEOUT.toMillis() + " ms" : cause.getMessage();
        return new FenceguardException("high-water store unavailable" + (presented == null ? "" : " for '"
                + presented.resource() + "'") + ": " + reason,
                presented == null ? null : presented.resource(), presented == null ? null : presented.token(), cause);
    }

    @Override
    public String toString() {
        return "R2dbcHighWaterStore[" + table + "]";
    }
}
