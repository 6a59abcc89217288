package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.filter.support.Http;
import io.fenceguard.http.filter.support.Instances;
import io.fenceguard.http.filter.support.TestApp;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/** A fenced handler never runs for a request the filter did not admit, whatever happened to the filter. */
class FencedEndpointInterceptorTest {

    static final Instances instances = new Instances();

    @AfterAll
    static void stop() {
        instances.close();
    }

    @Test
    void fencedHandlerRefusesRequestsTheFilterNeverSaw() {
        // The application replaced the filter's registration by mistake with one that lets all through.
        jakarta.servlet.Filter passThrough = (request, response, chain) -> chain.doFilter(request, response);
        int port = Instances.port(instances.start("no-filter", Instances.defaults(), ctx ->
                ctx.registerBean("fencingFilterRegistration", FilterRegistrationBean.class,
                        () -> new FilterRegistrationBean<>(passThrough))));
        SigningKeys keys = SigningKeys.of(Map.of("k1", Base64.getDecoder().decode(Instances.KEY_A)), "k1");
        String header = keys.header(new Fence(ResourceName.of("account:9"), FencingToken.of(5))).value();
        int reachedBefore = TestApp.REACHED.size();

        Http.Response fenced = Http.put(port, "/accounts/9", header);
        assertThat(fenced.status()).isEqualTo(428);
        assertThat(fenced.contentType()).startsWith("application/problem+json");
        assertThat(fenced.body()).contains("did not admit the request", "\"type\":\"urn:fenceguard:not-admitted\"");
        Http.Response open = Http.get(port, "/open/9");
        assertThat(open.status()).isEqualTo(200);
        assertThat(TestApp.REACHED).hasSize(reachedBefore + 1);
        assertThat(TestApp.REACHED).last().satisfies(r -> assertThat(r.path()).isEqualTo("/open/9"));
    }
}
