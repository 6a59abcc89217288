package io.fenceguard.spring.boot.autoconfigure.observation;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code fenceguard.observability.*}: observations and the {@code fenceguard} actuator endpoint. */
@ConfigurationProperties(prefix = "fenceguard.observability")
public class FenceguardObservabilityProperties {

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

    public boolean isIncludeResource() {
        return includeResource;
    }

    public void setIncludeResource(boolean includeResource) {
        this.includeResource = includeResource;
    }

    public int getRecentEvents() {
        return recentEvents;
    }

    public void setRecentEvents(int recentEvents) {
        this.recentEvents = recentEvents;
    }
}
