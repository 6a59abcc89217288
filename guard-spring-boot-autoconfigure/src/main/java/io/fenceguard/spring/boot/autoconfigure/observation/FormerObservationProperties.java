package io.fenceguard.spring.boot.autoconfigure.observation;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/**
 * {@code fenceguard.observability.*}, the former name of {@code fenceguard.observation.*}: still bound, so that
 * configurations written for it keep working, and reported deprecated with its replacement. A current key
 * set as well wins ({@link FenceguardObservationProperties#orFormer}).
 */
@ConfigurationProperties(prefix = FormerObservationProperties.PREFIX)
public class FormerObservationProperties {

    public static final String PREFIX = "fenceguard.observability";

    /** Unset unless configured: then the current key's value applies. */
    private Boolean includeResource;

    /** Unset unless configured: then the current key's value applies. */
    private Integer recentEvents;

    /** Whether observations carry the resource name. */
    @Deprecated
    @DeprecatedConfigurationProperty(replacement = FenceguardObservationProperties.PREFIX + ".include-resource",
            reason = "renamed with the package it configures")
    public Boolean getIncludeResource() {
        return includeResource;
    }

    public void setIncludeResource(Boolean includeResource) {
        this.includeResource = includeResource;
    }

    /** How many recent refusals and high-water marks the fenceguard actuator endpoint keeps. */
    @Deprecated
    @DeprecatedConfigurationProperty(replacement = FenceguardObservationProperties.PREFIX + ".recent-events",
            reason = "renamed with the package it configures")
    public Integer getRecentEvents() {
        return recentEvents;
    }

    public void setRecentEvents(Integer recentEvents) {
        this.recentEvents = recentEvents;
    }
}
