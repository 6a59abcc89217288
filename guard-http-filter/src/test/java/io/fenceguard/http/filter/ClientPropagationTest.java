package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.http.filter.support.Instances;
import io.fenceguard.http.filter.support.TestApp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Instance "a" calls instance "b", its only configured destination, spelled {@code localhost} while
 * the calls go to {@code 127.0.0.1}: every client Boot builds (and {@code java.net.http} through
 * {@link JavaHttpFencing}) sends the current lease's fence, and b's filter admits it.
 */
class ClientPropagationTest {

    static final Instances instances = new Instances();
    static final LeaseManager leases = LeaseManager.of(InMemoryLeaseProvider.create());
    static ConfigurableApplicationContext caller;
    static int a;
    static int b;

    @BeforeAll
    static void start() {
        Map<String, Object> properties = new LinkedHashMap<>(Instances.defaults());
        b = Instances.port(instances.start("b", properties, ctx -> { }));
        properties.put("test.destinations[0]", "http://localhost:" + b + "/accounts");
        properties.put("test.destinations[1]", "http://localhost:" + b + "/echo");
        caller = instances.start("a", properties, ctx -> { });
        a = Instances.port(caller);
    }

    @AfterAll
    static void stop() {
        instances.close();
        leases.close();
    }

    @Test
    void leaseFenceTravelsThroughEveryClientOnlyToConfiguredDestinations() throws Exception {
        RestClient restClient = caller.getBean(RestClient.Builder.class).build();
        RestTemplate restTemplate = caller.getBean(RestTemplateBuilder.class).build();
        WebClient.Builder webClientBuilder = WebClient.builder().clientConnector(new JdkClientHttpConnector());
        caller.getBeansOfType(WebClientCustomizer.class).values().forEach(c -> c.customize(webClientBuilder));
        WebClient webClient = webClientBuilder.build();
        JavaHttpFencing javaHttp = caller.getBean(JavaHttpFencing.class);
        HttpClient httpClient = HttpClient.newHttpClient();

        try (Lease lease = leases.acquire("account:77", Duration.ofSeconds(5));
                LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            String expected = lease.fence() + " " + lease.fence();
            String url = "http://127.0.0.1:" + b + "/accounts/77";
            assertThat(restClient.put().uri(url).retrieve().body(String.class)).isEqualTo(expected);
            assertThat(restTemplate.exchange(url, HttpMethod.PUT, null, String.class).getBody()).isEqualTo(expected);
            assertThat(webClient.put().uri(url).retrieve().bodyToMono(String.class).block()).isEqualTo(expected);
            HttpRequest request = HttpRequest.newBuilder(URI.create(url)).PUT(HttpRequest.BodyPublishers.noBody()).build();
            assertThat(httpClient.send(javaHttp.apply(request), HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo(expected);

            String echoed = restClient.get().uri("http://127.0.0.1:" + b + "/echo").retrieve().body(String.class);
            assertThat(FenceHeader.parse(echoed).fence()).isEqualTo(lease.fence());
            assertThat(FenceHeader.parse(echoed).keyId()).contains("k1");
            assertThat(restClient.get().uri("http://localhost:" + b + "/echo").retrieve().body(String.class))
                    .as("the destination's own spelling").isEqualTo(echoed);
            assertThat(restClient.get().uri("http://127.0.0.1:" + a + "/echo").retrieve().body(String.class))
                    .as("instance a is not a destination").isEqualTo("-");
        }
        assertThat(restClient.get().uri("http://127.0.0.1:" + b + "/echo").retrieve().body(String.class))
                .as("no lease in context, no header").isEqualTo("-");
    }

    @Test
    void releasedLeaseFailsTheCallBeforeItIsSent() {
        RestClient restClient = caller.getBean(RestClient.Builder.class).build();
        Lease lease = leases.acquire("account:78", Duration.ofSeconds(5));
        lease.close();
        try (LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            assertThatThrownBy(() -> restClient.put().uri("http://127.0.0.1:" + b + "/accounts/78").retrieve()
                    .body(String.class)).isInstanceOf(FenceguardException.class).hasMessageContaining("already released");
        }
        assertThat(TestApp.REACHED).noneMatch(r -> r.path().equals("/accounts/78"));
    }
}
