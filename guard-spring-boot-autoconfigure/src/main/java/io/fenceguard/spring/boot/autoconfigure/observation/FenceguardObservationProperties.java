package io.fenceguard.spring.boot.autoconfigure.observation;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code fenceguard.observation.*}: observations and the {@code fenceguard} actuator endpoint. The keys under
 * {@code fenceguard.observability.*}, their former name, still apply where these are not set
 * ({@link FormerObservationProperties}).
 */
@ConfigurationProperties(prefix = FenceguardObservationProperties.PREFIX)
public class FenceguardObservationProperties {

    public static final String PREFIX = "fenceguard.observation";

    /**
     * Whether observations carry the resource name, as a high-cardinality value (on spans, never as a meter
     * tag). Off by default: resource names may be many and may say more than a trace should. Default: false.
     */
    private boolean includeResource = false;

    /**
     * How many recent refusals and high-water marks the fenceguard actuator endpoint keeps, oldest dropped
     * first. Default: 100.
     */
    private int recentEvents = 100;

    // Which keys were set here, so that a former key applies only where its replacement is not set.
    private boolean includeResourceSet;
    private boolean recentEventsSet;

    public boolean isIncludeResource() {
        return includeResource;
    }

    public void setIncludeResource(boolean includeResource) {
        this.includeResource = includeResource;
        this.includeResourceSet = true;
    }

    public int getRecentEvents() {
        return recentEvents;
    }

    public void setRecentEvents(int recentEvents) {
        this.recentEvents = recentEvents;
        this.recentEventsSet = true;
    }

    /** These settings, with the former keys' values where the current keys are not set. */
    FenceguardObservationProperties orFormer(FormerObservationProperties former) {
        FenceguardObservationProperties merged = new FenceguardObservationProperties();
        merged.includeResource = !includeResourceSet && former.getIncludeResource() != null
                ? former.getIncludeResource() : includeResource;
        merged.recentEvents = !recentEventsSet && former.getRecentEvents() != null
                ? former.getRecentEvents() : recentEvents;
        return merged;
    }
}
