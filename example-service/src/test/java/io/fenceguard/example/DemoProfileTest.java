package io.fenceguard.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.autoconfigure.http.FenceguardHttpProperties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The demonstration signing key is configured only by the demo profile, which applies only while no
 * profile is set: whoever sets a profile of their own (and their keys) never accepts the demo key.
 * The example's own configuration files on an empty context: no servers, nothing else started.
 */
class DemoProfileTest {

    private static final String DEMO_KEY = "fenceguard.http.signing.keys.example-1";

    @Test
    void withoutAProfileTheDemoProfileAndItsKeyApply() {
        try (ConfigurableApplicationContext context = start()) {
            Environment env = context.getEnvironment();
            assertThat(env.getActiveProfiles()).isEmpty();
            assertThat(env.getDefaultProfiles()).containsExactly("demo");
            FenceguardHttpProperties.Signing signing = signing(context);
            assertThat(signing.getKeys()).containsExactly(java.util.Map.entry("example-1", LedgerContract.DEMO_KEY));
            assertThat(signing.getActiveKey()).isEqualTo("example-1");
            assertThat(signing.isRequired()).isTrue();
        }
    }

    @Test
    void anExplicitProfileReplacesTheDemoProfileAndDropsItsKey() {
        try (ConfigurableApplicationContext context = start("--spring.profiles.active=prod",
                "--fenceguard.http.signing.keys.prod-1=cHJvZHVjdGlvbi1rZXktb2YtYXQtbGVhc3QtMzItYnl0ZXMh",
                "--fenceguard.http.signing.active-key=prod-1")) {
            Environment env = context.getEnvironment();
            assertThat(env.getActiveProfiles()).containsExactly("prod");
            assertThat(env.getProperty(DEMO_KEY)).isNull();
            FenceguardHttpProperties.Signing signing = signing(context);
            assertThat(signing.getKeys()).containsOnlyKeys("prod-1");
            assertThat(signing.getActiveKey()).isEqualTo("prod-1");
            assertThat(signing.isRequired()).isTrue();
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
    static class Empty {
    }
}
