package io.fenceguard.spring.observation;

import io.fenceguard.core.Refusal;
import io.fenceguard.core.RefusalListener;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Instant;

/**
 * Refused writes of every layer as the observation {@code fenceguard.write.refused}, tagged with the layer that
 * refused ({@code layer} = {@code jdbc}, {@code http}, {@code messaging}: {@link Refusal.Layer#tag()}) and the
 * reason from that layer's fixed vocabulary (for HTTP the problem type: {@code stale-token}, {@code untrusted-token}
 * for signing failures, …; for messages and statements the refusal reason), and kept in {@link FenceguardActivity}
 * for the endpoint. The one {@link RefusalListener} of the JDBC guard, the fencing filters and message admission.
 */
public class ObservedRefusals implements RefusalListener {

    public static final String REFUSED = "fenceguard.write.refused";

    private final ObservationRegistry registry;
    private final FenceguardActivity activity;
    private final boolean includeResource;

    public ObservedRefusals(ObservationRegistry registry, FenceguardActivity activity, boolean includeResource) {
        this.registry = registry;
        this.activity = activity;
        this.includeResource = includeResource;
    }

    @Override
    public void refused(Refusal refusal) {
        String layer = refusal.layer().tag();
        String resource = refusal.resource().map(r -> r.value()).orElse(null);
        activity.refused(new FenceguardActivity.RecentRefusal(Instant.now(), layer, refusal.reason(), resource,
                refusal.token().map(t -> String.valueOf(t.value())).orElse(null),
                refusal.highWater().map(t -> String.valueOf(t.value())).orElse(null), refusal.detail()));
        Observation observation = Observation.createNotStarted(REFUSED, registry)
                .contextualName("fenceguard " + layer + " refused")
                .lowCardinalityKeyValue("layer", layer)
                .lowCardinalityKeyValue("reason", refusal.reason());
        if (includeResource && resource != null) {
            observation.highCardinalityKeyValue("resource", resource);
        }
        observation.start().stop();
    }
}
