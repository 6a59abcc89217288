package io.fenceguard.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.support.AdmissionLog;
import io.fenceguard.http.support.Http;
import io.fenceguard.http.support.Instances;
import io.fenceguard.http.support.Stores;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Two instances sharing a Redis high-water store. Instance "a" also acts as the caller: its clients
 * send the current lease's token to instance "b", the only configured destination.
 */
class RedisStoreServersTest {

    static Instances instances = new Instances();
    static RedissonClient redis;
    static LeaseManager leases;
    static ConfigurableApplicationContext caller;
    static String prefix;
    static int a;
    static int b;

    @BeforeAll
    static void start() {
        redis = Stores.redis();
        leases = LeaseManager.of(redis);
        prefix = Stores.uniquePrefix();
        Map<String, Object> properties = new LinkedHashMap<>(Instances.defaults());
        properties.put("guard.http.store.type", "redis");
        properties.put("guard.http.store.key-prefix", prefix);
        properties.put("guard.key-prefix", prefix + "lease:");
        b = Instances.port(instances.start("b", properties, ctx -> ctx.registerBean(RedissonClient.class, Stores::redis)));
        properties.put("guard.http.client.destinations[0]", "http://127.0.0.1:" + b + "/accounts");
        properties.put("guard.http.client.destinations[1]", "http://127.0.0.1:" + b + "/echo");
        caller = instances.start("a", properties, ctx -> ctx.registerBean(RedissonClient.class, Stores::redis));
        a = Instances.port(caller);
    }

    @AfterAll
    static void stop() {
        instances.close();
        redis.shutdown();
    }

    static String header(String resource, long token) {
        return JdbcStoreServersTest.CLIENT_K1.header(ResourceName.of(resource), FencingToken.of(token)).value();
    }

    @Test
    void olderTokenAfterNewerIsRefusedOnEitherInstanceAndEqualTokenContinues() {
        assertThat(Http.put(b, "/accounts/9", header("account:9", 7_000)).status()).isEqualTo(200);
        assertThat(Http.put(a, "/accounts/9", header("account:9", 7_001)).status()).isEqualTo(200);
        assertThat(Http.put(b, "/accounts/9", header("account:9", 7_000)).status()).isEqualTo(409);
        assertThat(Http.put(a, "/accounts/9", header("account:9", 7_000)).body()).contains("\"highWater\":\"7001\"");
        assertThat(Http.put(b, "/accounts/9", header("account:9", 7_001)).status()).isEqualTo(200);
        assertThat(redis.getBucket(prefix + "{account:9}:hw", org.redisson.client.codec.StringCodec.INSTANCE).get())
                .isEqualTo("7001");
    }

    @Test
    void tokensBeyondDoublePrecisionAreComparedExactly() {
        long big = (1L << 60) + 1;
        assertThat(Http.put(a, "/accounts/big", header("account:big", big)).status()).isEqualTo(200);
        assertThat(Http.put(b, "/accounts/big", header("account:big", big - 1)).status()).isEqualTo(409);
        assertThat(Http.put(b, "/accounts/big", header("account:big", big)).status()).isEqualTo(200);
    }

    @Test
    void concurrentTokensAreAdmittedMonotonicallyAcrossInstances() throws Exception {
        AdmissionLog log = AdmissionLog.run(List.of(a, b), "/accounts/race", ResourceName.of("account:race"),
                JdbcStoreServersTest.CLIENT_K1, 50_000, 8, 40);
        assertThat(log.assertMonotonic()).isGreaterThan(1_000);
        assertThat(log.entries()).anyMatch(e -> e.status() == 409);
        assertThat(redis.getBucket(prefix + "{account:race}:hw", org.redisson.client.codec.StringCodec.INSTANCE).get())
                .isEqualTo(Long.toString(log.maxToken()));
    }

    @Test
    void leaseTokenTravelsThroughEveryClientOnlyToConfiguredDestinations() throws Exception {
        RestClient restClient = caller.getBean(RestClient.Builder.class).build();
        RestTemplate restTemplate = caller.getBean(RestTemplateBuilder.class).build();
        WebClient.Builder webClientBuilder = WebClient.builder().clientConnector(new JdkClientHttpConnector());
        caller.getBeansOfType(WebClientCustomizer.class).values().forEach(c -> c.customize(webClientBuilder));
        WebClient webClient = webClientBuilder.build();
        JavaHttpFencing javaHttp = caller.getBean(JavaHttpFencing.class);
        HttpClient httpClient = HttpClient.newHttpClient();

        try (Lease lease = leases.acquire("account:77", Duration.ofSeconds(5));
                LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            String expected = "InboundToken[account:77, token " + lease.token() + "]";
            String url = "http://127.0.0.1:" + b + "/accounts/77";
            assertThat(restClient.put().uri(url).retrieve().body(String.class)).startsWith(expected);
            assertThat(restTemplate.exchange(url, org.springframework.http.HttpMethod.PUT, null, String.class).getBody())
                    .startsWith(expected);
            assertThat(webClient.put().uri(url).retrieve().bodyToMono(String.class).block()).startsWith(expected);
            HttpRequest request = HttpRequest.newBuilder(URI.create(url)).PUT(HttpRequest.BodyPublishers.noBody()).build();
            assertThat(httpClient.send(javaHttp.apply(request), HttpResponse.BodyHandlers.ofString()).body())
                    .startsWith(expected);

            String echoed = restClient.get().uri("http://127.0.0.1:" + b + "/echo").retrieve().body(String.class);
            assertThat(FenceHeader.parse(echoed).token()).isEqualTo(lease.token());
            assertThat(FenceHeader.parse(echoed).keyId()).contains("k1");
            assertThat(restClient.get().uri("http://127.0.0.1:" + a + "/echo").retrieve().body(String.class))
                    .as("instance a is not a destination").isEqualTo("-");
            assertThat(restClient.get().uri("http://localhost:" + b + "/echo").retrieve().body(String.class))
                    .as("another host name is another destination").isEqualTo("-");
        }
        assertThat(restClient.get().uri("http://127.0.0.1:" + b + "/echo").retrieve().body(String.class))
                .as("no lease in context, no header").isEqualTo("-");
    }

    @Test
    void lostLeaseFailsTheCallBeforeItIsSent() {
        RestClient restClient = caller.getBean(RestClient.Builder.class).build();
        Lease lease = leases.acquire("account:78", Duration.ofSeconds(5));
        lease.close();
        try (LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            assertThatThrownBy(() -> restClient.put().uri("http://127.0.0.1:" + b + "/accounts/78").retrieve()
                    .body(String.class)).isInstanceOf(io.fenceguard.core.GuardException.class)
                    .hasMessageContaining("already released");
        }
        assertThat(io.fenceguard.http.support.TestApp.REACHED).noneMatch(r -> r.path().equals("/accounts/78"));
        assertThat(redis.getBucket(prefix + "{account:78}:hw").isExists()).isFalse();
    }
}
