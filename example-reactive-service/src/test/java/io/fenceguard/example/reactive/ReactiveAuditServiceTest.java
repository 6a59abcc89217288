package io.fenceguard.example.reactive;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.reactor.ReactiveLeases;
import io.fenceguard.reactor.webflux.ReactiveFencingExchangeFilterFunction;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * The service on Reactor Netty, called as the ledger calls it: a client holding a lease (on the test
 * Redis) sends the signed fencing header; the token travels lease → HTTP → WebFilter → R2DBC → the
 * audit_heads row in PostgreSQL.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ReactiveAuditServiceTest {

    static final String DEMO_KEY = "ZmVuY2VndWFyZC1leGFtcGxlLWtleS1kby1ub3QtdXNlLWluLXByb2R1Y3Rpb24=";
    static final SigningKeys KEYS = SigningKeys.of(Map.of("example-1", Base64.getDecoder().decode(DEMO_KEY)), "example-1");

    static RedissonClient redisson;
    static LeaseManager leaseManager;

    @LocalServerPort
    int port;

    /** A schema of this test's own on the test PostgreSQL, for both the JDBC and the R2DBC side. */
    static ScratchSpace scratch;
    static String jdbcUrl;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        JdbcEndpoint postgres = TestServers.postgres();
        scratch = ScratchSpace.create(postgres, "audit");
        jdbcUrl = postgres.url() + (postgres.url().contains("?") ? "&" : "?") + "currentSchema=" + scratch.schema();
        URI uri = URI.create(postgres.url().substring("jdbc:".length()));
        String database = uri.getPath() == null || uri.getPath().length() <= 1 ? "postgres" : uri.getPath().substring(1);
        registry.add("spring.r2dbc.url", () -> "r2dbc:postgresql://" + uri.getHost() + ":"
                + (uri.getPort() < 0 ? 5432 : uri.getPort()) + "/" + database + "?schema=" + scratch.schema());
        registry.add("spring.r2dbc.username", postgres::user);
        registry.add("spring.r2dbc.password", postgres::password);
        registry.add("spring.datasource.url", () -> jdbcUrl);
        registry.add("spring.datasource.username", postgres::user);
        registry.add("spring.datasource.password", postgres::password);
        // The ledger's tokens here come from the test's own manager on the Redis clock floor: the service's bound
        // and lease store take the same mode, on keys of this run only.
        registry.add("fenceguard.redis.token-epoch", () -> "clock");
        registry.add("fenceguard.redis.key-prefix", () -> PREFIX);
    }

    private static final String PREFIX = "fgaudit-" + java.util.UUID.randomUUID().toString().substring(0, 8) + ":";

    @BeforeAll
    static void leases() {
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri());
        redisson = Redisson.create(config);
        leaseManager = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson),
                io.fenceguard.redis.RedisLeaseConfig.builder().keyPrefix(PREFIX).build()));
    }

    @AfterAll
    static void close() {
        leaseManager.close();
        redisson.shutdown();
        if (scratch != null) {
            scratch.close();
        }
    }

    private String base() {
        return "http://127.0.0.1:" + port;
    }

    /** A client as the ledger's: the fencing header for this service, from the lease in the Reactor Context. */
    private WebClient fencedClient() {
        return WebClient.builder().baseUrl(base())
                .filter(new ReactiveFencingExchangeFilterFunction(OutboundFence.of(Destinations.of(base() + "/audit"), KEYS)))
                .build();
    }

    private Mono<ResponseEntity<String>> post(WebClient client, String account, long amount) {
        return client.post().uri("/audit/{id}", account).bodyValue(Map.of("amount", amount, "balance", 100 + amount))
                .exchangeToMono(response -> response.toEntity(String.class));
    }

    private ResponseEntity<String> postWithHeader(String account, String header) {
        return WebClient.create(base()).post().uri("/audit/{id}", account).header("Fencing-Token", header)
                .bodyValue(Map.of("amount", 1, "balance", 1)).exchangeToMono(r -> r.toEntity(String.class))
                .block(Duration.ofSeconds(20));
    }

    private static long headToken(String account) throws Exception {
        JdbcEndpoint postgres = TestServers.postgres();
        try (Connection connection = DriverManager.getConnection(jdbcUrl, postgres.user(), postgres.password());
             PreparedStatement query = connection.prepareStatement(
                     "SELECT current_token FROM audit_heads WHERE account_id = ?")) {
            query.setString(1, account);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next() ? rows.getLong(1) : -1;
            }
        }
    }

    private static void forgetHighWater(String account) throws Exception {
        JdbcEndpoint postgres = TestServers.postgres();
        try (Connection connection = DriverManager.getConnection(jdbcUrl, postgres.user(), postgres.password());
             PreparedStatement delete = connection.prepareStatement(
                     "DELETE FROM fenceguard_http_high_water WHERE resource = ?")) {
            delete.setString(1, "account:" + account);
            assertThat(delete.executeUpdate()).isEqualTo(1);
        }
    }

    @Test
    void the_token_of_the_callers_lease_travels_to_the_row() throws Exception {
        String account = "acc-" + UUID.randomUUID().toString().substring(0, 8);
        ReactiveLeases leases = ReactiveLeases.of(leaseManager);
        WebClient client = fencedClient();

        List<Object> first = leases.withLease("account:" + account, Duration.ofSeconds(5),
                lease -> post(client, account, 5).map(response -> List.<Object>of(lease.token().value(), response)))
                .block(Duration.ofSeconds(20));
        long token = (Long) first.get(0);
        @SuppressWarnings("unchecked")
        ResponseEntity<String> created = (ResponseEntity<String>) first.get(1);
        assertThat(created.getStatusCode()).isEqualTo(HttpStatusCode.valueOf(201));
        assertThat(created.getBody()).contains("\"seq\":1", "\"token\":" + token);
        assertThat(headToken(account)).as("audit_heads.current_token").isEqualTo(token);

        Long second = leases.withLease("account:" + account, Duration.ofSeconds(5),
                lease -> post(client, account, 7).thenReturn(lease.token().value())).block(Duration.ofSeconds(20));
        assertThat(second).isGreaterThan(token);
        assertThat(headToken(account)).isEqualTo(second);

        List<AuditRepository.Entry> entries = WebClient.create(base()).get().uri("/audit/{id}", account).retrieve()
                .bodyToMono(new ParameterizedTypeReference<List<AuditRepository.Entry>>() { }).block(Duration.ofSeconds(20));
        assertThat(entries).extracting(AuditRepository.Entry::token).containsExactly(token, second);
    }

    @Test
    void a_stale_caller_is_refused_by_the_filter_and_if_the_filter_forgot_by_postgresql() throws Exception {
        String account = "acc-" + UUID.randomUUID().toString().substring(0, 8);
        String older = KEYS.header(new Fence(ResourceName.of("account:" + account), FencingToken.of(1_000))).value();
        String newer = KEYS.header(new Fence(ResourceName.of("account:" + account), FencingToken.of(1_001))).value();
        assertThat(postWithHeader(account, newer).getStatusCode().value()).isEqualTo(201);

        ResponseEntity<String> byFilter = postWithHeader(account, older);
        assertThat(byFilter.getStatusCode().value()).isEqualTo(409);
        assertThat(byFilter.getBody()).contains("urn:fenceguard:stale-token", "\"highWater\":\"1001\"");

        // The HTTP mark is gone (a new store, a lost table): the filter admits the old token, the row does not.
        forgetHighWater(account);
        ResponseEntity<String> byDatabase = postWithHeader(account, older);
        assertThat(byDatabase.getStatusCode().value()).as(byDatabase.getBody()).isEqualTo(409);
        assertThat(byDatabase.getBody()).contains("urn:fenceguard:stale-token", "audit_heads");
        assertThat(headToken(account)).isEqualTo(1_001);
        List<AuditRepository.Entry> entries = WebClient.create(base()).get().uri("/audit/{id}", account).retrieve()
                .bodyToMono(new ParameterizedTypeReference<List<AuditRepository.Entry>>() { }).block(Duration.ofSeconds(20));
        assertThat(entries).hasSize(1).extracting(AuditRepository.Entry::token).containsExactly(1_001L);
    }

    @Test
    void a_call_without_a_token_is_refused_with_428() {
        ResponseEntity<String> response = WebClient.create(base()).post().uri("/audit/{id}", "acc-x")
                .bodyValue(Map.of("amount", 1, "balance", 1)).exchangeToMono(r -> r.toEntity(String.class))
                .block(Duration.ofSeconds(20));
        assertThat(response.getStatusCode().value()).isEqualTo(428);
        assertThat(response.getHeaders().getContentType().toString()).startsWith("application/problem+json");
    }
}
