package io.fenceguard.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.spring.WithheldRenewals;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A lease at risk, a release request and the loss are each one observation, in the order they happened. */
class ObservedLeasesTest {

    @Test
    void atRiskReleaseRequestedAndLostAreObservedWithTheResourceOnlyWhenAskedFor() throws Exception {
        List<String> stopped = new CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                String resource = context.getHighCardinalityKeyValue("resource") == null ? ""
                        : " " + context.getHighCardinalityKeyValue("resource").getValue();
                stopped.add(context.getName() + resource);
            }
        });
        WithheldRenewals store = new WithheldRenewals();
        try (LeaseManager leases = LeaseManager.of(store, LeaseConfig.builder().leaseTime(Duration.ofMillis(600))
                .renewInterval(Duration.ofMillis(150)).build())) {
            leases.addObserver(new ObservedLeases(registry, true));
            Lease lease = leases.acquire("account:4", Duration.ofSeconds(1));
            lease.onReleaseRequested((l, reason) -> { });
            leases.requestRelease("account:4", "maintenance");
            Thread.sleep(100);
            store.withhold();
            long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (!stopped.contains(ObservedLeases.LOST + " account:4") && System.nanoTime() < end) {
                Thread.sleep(10);
            }
        }
        assertThat(stopped).containsExactly(ObservedLeases.ACQUIRE + " account:4",
                ObservedLeases.RELEASE_REQUESTED + " account:4", ObservedLeases.AT_RISK + " account:4",
                ObservedLeases.LOST + " account:4");
    }
}
