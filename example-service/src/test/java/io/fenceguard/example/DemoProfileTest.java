package io.fenceguard.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.SigningKeys;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpProperties;
import io.fenceguard.spring.boot.autoconfigure.http.HttpFencingConfigurationException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The demonstration signing key exists only under the demo profile, which applies only when asked for,
 * and is never accepted next to configured keys. The example's own configuration files on an empty
 * context (plus the HTTP fencing auto-configuration): no servers, nothing else started.
 */
class DemoProfileTest {

    private static final String PROD_KEY = "cHJvZHVjdGlvbi1rZXktb2YtYXQtbGVhc3QtMzItYnl0ZXMh";

    @Test
    void withoutAProfileThereIsNoKeyAtAll() {
        try (ConfigurableApplicationContext context = start()) {
            Environment env = context.getEnvironment();
            assertThat(env.getActiveProfiles()).isEmpty();
            assertThat(env.getDefaultProfiles()).containsExactly("default");
            FenceguardHttpProperties.Signing signing = signing(context);
            assertThat(signing.getKeys()).isEmpty();
            assertThat(signing.getDemoKeys()).isEmpty();
            assertThat(signing.isRequired()).isTrue();
        }
    }

    @Test
    void theDemoProfileSignsWithTheDemoKeyAlone() {
        try (ConfigurableApplicationContext context = start("--spring.profiles.active=demo")) {
            assertThat(signing(context).getDemoKeys()).containsExactly(Map.entry("example-1", LedgerContract.DEMO_KEY));
            SigningKeys keys = context.getBean(SigningKeys.class);
            assertThat(keys.activeKeyId()).contains("example-1");
            assertThat(keys.required()).isTrue();
        }
    }

    @Test
    void theDemoProfileNextToConfiguredKeysStopsTheStartup() {
        assertThatThrownBy(() -> start("--spring.profiles.active=demo",
                "--fenceguard.http.signing.keys.prod-1=" + PROD_KEY, "--fenceguard.http.signing.active-key=prod-1").close())
                .hasRootCauseInstanceOf(HttpFencingConfigurationException.class)
                .rootCause().hasMessageContaining("never accepted next to configured keys [prod-1]");
    }

    @Test
    void anotherProfileWithItsOwnKeysNeverSeesTheDemoKey() {
        try (ConfigurableApplicationContext context = start("--spring.profiles.active=prod",
                "--fenceguard.http.signing.keys.prod-1=" + PROD_KEY, "--fenceguard.http.signing.active-key=prod-1")) {
            FenceguardHttpProperties.Signing signing = signing(context);
            assertThat(signing.getKeys()).containsOnlyKeys("prod-1");
            assertThat(signing.getDemoKeys()).isEmpty();
            assertThat(context.getBean(SigningKeys.class).activeKeyId()).contains("prod-1");
        }
    }

    /** fenceguard.http.signing.* as the HTTP auto-configuration binds it. */
    private static FenceguardHttpProperties.Signing signing(ConfigurableApplicationContext context) {
        return Binder.get(context.getEnvironment()).bind(FenceguardHttpProperties.PREFIX, FenceguardHttpProperties.class)
                .orElseGet(FenceguardHttpProperties::new).getSigning();
    }

    private static ConfigurableApplicationContext start(String... args) {
        return new SpringApplicationBuilder(Empty.class).web(WebApplicationType.NONE)
                .properties("example.embedded.enabled=false").run(args);
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(FenceguardHttpAutoConfiguration.class)
    static class Empty {
    }
}
