package io.fenceguard.reactor.webflux.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.r2dbc.TestR2dbc;
import io.fenceguard.reactor.webflux.FencingWebFilter;
import io.fenceguard.reactor.webflux.NettyServer;
import io.r2dbc.spi.ConnectionFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;

/**
 * The WebFlux filter's admission joined to the handler's R2DBC transaction, on a real Netty server and real
 * PostgreSQL: the mark and the nonce are written on the handler's connection, so a handler that fails (an error,
 * or an answer of 400 or more) leaves neither its row, nor the mark, nor the nonce, and a retry is admitted; one
 * that commits leaves the mark raised; a stale token is refused with 409 before the handler runs.
 */
class R2dbcJoinedAdmissionTest {

    private static final SigningKeys KEYS = SigningKeys.of(Map.of("k1",
            "a-test-key-of-at-least-32-bytes!!".getBytes(StandardCharsets.US_ASCII)), "k1");
    private static final Pattern NONCE = Pattern.compile("nonce=\"([^\"]+)\"");
    private static final String TABLE = "h8_joined_" + UUID.randomUUID().toString().substring(0, 8);

    private static ConnectionFactory factory;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicInteger ran = new AtomicInteger();

    @BeforeAll
    static void table() {
        factory = TestR2dbc.r2dbc();
        TestR2dbc.execute("CREATE TABLE " + TABLE + " (id VARCHAR(64) NOT NULL, token BIGINT NOT NULL)");
    }

    @AfterAll
    static void dropTable() {
        TestR2dbc.execute("DROP TABLE IF EXISTS " + TABLE);
    }

    @Test
    void aFailedHandlerLeavesNoMarkAndARetryIsAdmittedOneThatCommitsRaisesIt() throws Exception {
        try (NettyServer server = start(fence(false))) {
            String id = account();
            assertThat(post(server, id, 5).statusCode()).isEqualTo(201);
            assertThat(mark(id)).as("the committed handler raised the mark").isEqualTo(5L);

            HttpResponse<String> failed = post(server, id, 9, "X-Fail", "1");
            assertThat(failed.statusCode()).isEqualTo(500);
            HttpResponse<String> refused = post(server, id, 8, "X-Status", "422");
            assertThat(refused.statusCode()).as("the handler's own answer, held until the rollback").isEqualTo(422);
            assertThat(mark(id)).as("9 and 8 rolled back with their handlers").isEqualTo(5L);
            assertThat(rows(id)).as("nor did their rows stay").isEqualTo(1);

            HttpResponse<String> older = post(server, id, 7);
            assertThat(older.statusCode()).as("7 is newer than the mark 5: " + older.body()).isEqualTo(201);
            assertThat(older.body()).as("the handler ran in the admission's transaction").isEqualTo("in-transaction");
            HttpResponse<String> retried = post(server, id, 9);
            assertThat(retried.statusCode()).as("the failed token's retry").isEqualTo(201);
            assertThat(mark(id)).isEqualTo(9L);
            assertThat(rows(id)).isEqualTo(3);
        }
    }

    @Test
    void aStaleTokenIsRefusedWith409AndItsHandlerNeverRuns() throws Exception {
        try (NettyServer server = start(fence(false))) {
            String id = account();
            assertThat(post(server, id, 6).statusCode()).isEqualTo(201);
            int before = ran.get();
            HttpResponse<String> stale = post(server, id, 4);
            assertThat(stale.statusCode()).isEqualTo(409);
            assertThat(stale.body()).contains("urn:fenceguard:stale-token");
            assertThat(ran.get()).as("the handler of a stale token").isEqualTo(before);
            assertThat(mark(id)).isEqualTo(6L);
            assertThat(rows(id)).isEqualTo(1);
        }
    }

    @Test
    void aFailedRequestSignedCallLeavesNoNonceAndTheSameBytesAreAdmittedOnce() throws Exception {
        try (NettyServer server = start(fence(true))) {
            String id = account();
            Signed call = Signed.of(server, id, 3);
            HttpResponse<String> failed = call.send("X-Fail", "1");
            assertThat(failed.statusCode()).as(failed.body()).isEqualTo(500);
            assertThat(nonceRecorded(call.nonce())).as("the nonce rolled back with the handler").isFalse();
            assertThat(mark(id)).isNull();
            HttpResponse<String> again = call.send();
            assertThat(again.statusCode()).as("the same signed bytes, once more: " + again.body()).isEqualTo(201);
            assertThat(nonceRecorded(call.nonce())).isTrue();
            HttpResponse<String> replayed = call.send();
            assertThat(replayed.statusCode()).isEqualTo(403);
            assertThat(replayed.body()).contains("urn:fenceguard:replayed-request");
            assertThat(rows(id)).isEqualTo(1);
        }
    }

    @Test
    void aTransactionManagerOnAnotherFactoryIsRefusedAndKeysAreNotKeptInTheTransaction() {
        R2dbcHighWaterStore store = R2dbcHighWaterStore.of(factory);
        assertThatThrownBy(() -> R2dbcAdmissionTransaction.of(store,
                new org.springframework.r2dbc.connection.R2dbcTransactionManager(TestR2dbc.r2dbc())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ConnectionFactory");
        FencingWebFilter joined = FencingWebFilter.of(fence(false)).inTransaction(R2dbcAdmissionTransaction.of(store));
        assertThatThrownBy(() -> joined.withIdempotency(InMemoryHighWaterStore.create()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("inTransaction");
        assertThatThrownBy(() -> R2dbcHighWaterStore.of(factory, "no such; table"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private InboundFence fence(boolean signed) {
        R2dbcHighWaterStore store = R2dbcHighWaterStore.of(factory);
        InboundFence fence = InboundFence.of(List.of(FencedRoute.of(Set.of("POST"), "/entries/{id}", "account:{id}")),
                store, signed ? KEYS : SigningKeys.none());
        return signed ? fence.withRequestSignatures(store, true) : fence;
    }

    private NettyServer start(InboundFence fence) {
        R2dbcAdmissionTransaction transaction = R2dbcAdmissionTransaction.of((R2dbcHighWaterStore) fence.store());
        return NettyServer.start(WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(
                RouterFunctions.route().POST("/entries/{id}", this::handle).build()))
                .filter(FencingWebFilter.of(fence).inTransaction(transaction)).build());
    }

    /** Inserts a row, then fails with {@code X-Fail}, answers the status in {@code X-Status}, or 201. */
    private Mono<ServerResponse> handle(ServerRequest request) {
        ran.incrementAndGet();
        String id = request.pathVariable("id");
        long token = FenceHeader.parse(request.headers().firstHeader(FenceHeader.DEFAULT_NAME)).fence().token().value();
        return DatabaseClient.create(factory).sql("INSERT INTO " + TABLE + " (id, token) VALUES (:id, :token)")
                .bind("id", id).bind("token", token).then()
                .then(TransactionSynchronizationManager.forCurrentTransaction()
                        .map(TransactionSynchronizationManager::isActualTransactionActive)
                        .onErrorReturn(false))
                .flatMap(inTransaction -> {
                    if (request.headers().firstHeader("X-Fail") != null) {
                        return Mono.error(new IllegalStateException("the handler fails after its write"));
                    }
                    String status = request.headers().firstHeader("X-Status");
                    return ServerResponse.status(status == null ? HttpStatus.CREATED
                            : HttpStatus.valueOf(Integer.parseInt(status)))
                            .bodyValue(inTransaction ? "in-transaction" : "outside");
                });
    }

    private HttpResponse<String> post(NettyServer server, String id, long token, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/entries/" + id))
                .timeout(Duration.ofSeconds(30))
                .header(FenceHeader.DEFAULT_NAME, header(id, token))
                .POST(HttpRequest.BodyPublishers.ofString("{}"));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String header(String id, long token) {
        return FenceHeader.of(new Fence(ResourceName.of("account:" + id), FencingToken.of(token))).value();
    }

    /** One request-signed call, sent as often as asked with the same signature and nonce. */
    private record Signed(HttpClient http, URI target, String fencing, Map<String, String> signature) {

        static Signed of(NettyServer server, String id, long token) {
            URI target = URI.create(server.baseUrl() + "/entries/" + id);
            String fencing = header(id, token);
            return new Signed(HttpClient.newHttpClient(), target, fencing, RequestSignatures.of(KEYS,
                    FenceHeader.DEFAULT_NAME).sign("POST", target, fencing, "{}".getBytes(StandardCharsets.UTF_8)));
        }

        /** The nonce as the store keeps it: the signing key's id and the signature's nonce. */
        String nonce() {
            Matcher matcher = NONCE.matcher(signature.get(RequestSignatures.SIGNATURE_INPUT));
            assertThat(matcher.find()).as(signature.toString()).isTrue();
            return "k1:" + matcher.group(1);
        }

        HttpResponse<String> send(String... headers) throws Exception {
            HttpRequest.Builder request = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString("{}"));
            signature.forEach(request::header);   // the fencing header among them
            if (headers.length > 0) {
                request.headers(headers);
            }
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static Long mark(String id) throws SQLException {
        try (Connection c = TestR2dbc.jdbc().getConnection(); PreparedStatement read = c.prepareStatement(
                "SELECT token FROM " + JdbcHighWaterStore.DEFAULT_TABLE + " WHERE resource = ?")) {
            read.setString(1, "account:" + id);
            try (ResultSet rows = read.executeQuery()) {
                return rows.next() ? rows.getLong(1) : null;
            }
        }
    }

    private static int rows(String id) throws SQLException {
        try (Connection c = TestR2dbc.jdbc().getConnection();
                PreparedStatement read = c.prepareStatement("SELECT count(*) FROM " + TABLE + " WHERE id = ?")) {
            read.setString(1, id);
            try (ResultSet rows = read.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    private static boolean nonceRecorded(String nonce) throws SQLException {
        try (Connection c = TestR2dbc.jdbc().getConnection(); PreparedStatement read = c.prepareStatement(
                "SELECT 1 FROM " + JdbcHighWaterStore.NONCE_TABLE + " WHERE nonce = ?")) {
            read.setString(1, nonce);
            try (ResultSet rows = read.executeQuery()) {
                return rows.next();
            }
        }
    }

    private static String account() {
        return "acc-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
