package io.fenceguard.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Refusal;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** One listener for every layer: each refusal is one observation tagged with its layer and reason, and listed. */
class ObservedRefusalsTest {

    @Test
    void refusalsOfEveryLayerAreObservedByLayerAndReasonAndKeptForTheEndpoint() {
        List<String> stopped = new CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context.getName() + " " + context.getLowCardinalityKeyValue("layer").getValue() + " "
                        + context.getLowCardinalityKeyValue("reason").getValue()
                        + (context.getHighCardinalityKeyValue("resource") == null ? ""
                                : " " + context.getHighCardinalityKeyValue("resource").getValue()));
            }
        });
        FenceguardActivity activity = new FenceguardActivity(10);
        ObservedRefusals refusals = new ObservedRefusals(registry, activity, true);

        refusals.refused(Refusal.builder(Refusal.Layer.JDBC, "stale").fence(Fence.of("account:1", "9"))
                .where("UPDATE accounts SET balance = ? WHERE id = 1").detail("stale token").build());
        refusals.refused(Refusal.builder(Refusal.Layer.HTTP, "stale-token").fence(Fence.of("account:2", "4"))
                .highWater(FencingToken.of(5)).where("PUT /accounts/2").detail("older").build());
        refusals.refused(Refusal.builder(Refusal.Layer.MESSAGING, "missing").where("kafka:orders-0@3").build());

        assertThat(stopped).containsExactly(ObservedRefusals.REFUSED + " jdbc stale account:1",
                ObservedRefusals.REFUSED + " http stale-token account:2", ObservedRefusals.REFUSED + " messaging missing");
        assertThat(activity.recentRefusals()).extracting(FenceguardActivity.RecentRefusal::layer)
                .containsExactly("messaging", "http", "jdbc");
        assertThat(activity.recentRefusals().get(1)).satisfies(http -> {
            assertThat(http.resource()).isEqualTo("account:2");
            assertThat(http.token()).isEqualTo("4");
            assertThat(http.highWater()).isEqualTo("5");
            assertThat(http.detail()).isEqualTo("older");
        });
    }
}
