package io.fenceguard.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Instant;

/**
 * Refused writes as the observation {@code fenceguard.write.refused}, tagged with the layer that refused
 * ({@code http}, {@code messaging}) and the reason from that layer's fixed vocabulary (for HTTP the problem
 * type: {@code stale-token}, {@code untrusted-token} for signing failures, …; for messages the refusal
 * reason), and kept in {@link FenceguardActivity} for the endpoint.
 */
public class ObservedRefusals {

    public static final String REFUSED = "fenceguard.write.refused";

    private final ObservationRegistry registry;
    private final FenceguardActivity activity;
    private final boolean includeResource;

    public ObservedRefusals(ObservationRegistry registry, FenceguardActivity activity, boolean includeResource) {
        this.registry = registry;
        this.activity = activity;
        this.includeResource = includeResource;
    }

    public void refused(String layer, String reason, String resource, String token, String highWater, String detail) {
        activity.refused(new FenceguardActivity.Refusal(Instant.now(), layer, reason, resource, token, highWater, detail));
        Observation observation = Observation.createNotStarted(REFUSED, registry)
                .contextualName("fenceguard " + layer + " refused")
                .lowCardinalityKeyValue("layer", layer)
                .lowCardinalityKeyValue("reason", reason);
        if (includeResource && resource != null) {
            observation.highCardinalityKeyValue("resource", resource);
        }
        observation.start().stop();
    }
}
