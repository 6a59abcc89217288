package io.fenceguard.autoconfigure.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.http.FenceGate;
import io.fenceguard.http.HighWaterStore;
import io.fenceguard.http.InMemoryHighWaterStore;
import io.fenceguard.http.OutboundFence;
import io.fenceguard.http.SigningKeys;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

class GuardHttpAutoConfigurationTest {

    final WebApplicationContextRunner runner = new WebApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(GuardHttpSigningAutoConfiguration.class, GuardHttpStoreAutoConfiguration.class,
                    GuardHttpServerAutoConfiguration.class, GuardHttpClientAutoConfiguration.class));

    @Test
    void refusesToStartWithoutKeysWhileSignaturesAreRequired() {
        runner.run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                .hasMessageContaining("guard.http.signing.keys is empty"));
    }

    @Test
    void unsignedModeMustBeChosenExplicitly() {
        runner.withPropertyValues("guard.http.signing.required=false").run(context -> {
            assertThat(context).hasSingleBean(FenceGate.class).hasSingleBean(OutboundFence.class);
            assertThat(context.getBean(SigningKeys.class).required()).isFalse();
        });
    }

    @Test
    void ownBeansWin() {
        HighWaterStore own = InMemoryHighWaterStore.create();
        runner.withPropertyValues("guard.http.signing.required=false")
                .withBean(HighWaterStore.class, () -> own)
                .run(context -> assertThat(context.getBean(HighWaterStore.class)).isSameAs(own));
    }

    @Test
    void filterCanBeSwitchedOff() {
        runner.withPropertyValues("guard.http.signing.required=false", "guard.http.server.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(FenceGate.class).hasSingleBean(OutboundFence.class));
    }
}
