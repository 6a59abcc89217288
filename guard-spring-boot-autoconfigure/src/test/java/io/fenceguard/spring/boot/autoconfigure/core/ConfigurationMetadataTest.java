package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;

/** The metadata the configuration processor writes: what IDEs and the docs show of fenceguard's properties. */
class ConfigurationMetadataTest {

    /**
     * Defaults that depend on another property, or properties whose absence is the default (a move of the lock store
     * to another epoch source happens only when asked); their description says what they are.
     */
    private static final Set<String> COMPUTED_DEFAULTS = Set.of("fenceguard.lease.renew-interval",
            "fenceguard.redis.replica-acknowledgements", "fenceguard.redis.token-epoch-source-replaces");

    @Test
    void everyLeaseAndRedisPropertyHasADescriptionAndADefault() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties = new TreeMap<>();
        try (InputStream json = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(json).as("metadata written by the configuration processor").isNotNull();
            ConfigurationMetadataRepositoryJsonBuilder.create(json).build().getAllProperties().forEach((name, property) -> {
                if (name.equals("fenceguard.enabled") || name.startsWith("fenceguard.lease.")
                        || name.startsWith("fenceguard.redis.")) {
                    properties.put(name, property);
                }
            });
        }
        assertThat(properties).containsKeys("fenceguard.enabled", "fenceguard.lease.store", "fenceguard.lease.lease-time",
                "fenceguard.lease.renew-interval", "fenceguard.lease.default-wait", "fenceguard.lease.client-name",
                "fenceguard.redis.key-prefix", "fenceguard.redis.lock-delay", "fenceguard.redis.token-idle-ttl",
                "fenceguard.redis.attempts", "fenceguard.redis.backoff", "fenceguard.redis.contention-backoff",
                "fenceguard.redis.contention-backoff-max", "fenceguard.redis.circuit-breaker.failure-rate-threshold",
                "fenceguard.redis.circuit-breaker.sliding-window-size",
                "fenceguard.redis.circuit-breaker.open-state-duration", "fenceguard.redis.token-epoch",
                "fenceguard.redis.token-epoch-sequence", "fenceguard.redis.replica-acknowledgements",
                "fenceguard.redis.replica-timeout");
        assertThat(properties.values()).allSatisfy(property -> {
            assertThat(property.getDescription()).as(property.getId()).isNotBlank();
            if (!COMPUTED_DEFAULTS.contains(property.getId())) {
                assertThat(property.getDefaultValue()).as(property.getId()).isNotNull();
            }
        });
        assertThat(properties.get("fenceguard.lease.store").getDefaultValue()).isEqualTo("auto");
        assertThat(properties.get("fenceguard.redis.token-epoch").getDefaultValue()).isEqualTo("database");
        assertThat(properties.get("fenceguard.redis.token-epoch").getDescription()).contains("never steps back", "Without a DataSource");
        assertThat(properties.get("fenceguard.lease.lease-time").getDefaultValue()).isEqualTo("30s");
        assertThat(properties.get("fenceguard.redis.replica-timeout").getDefaultValue()).isEqualTo("500ms");
        assertThat(properties.get("fenceguard.lease.at-risk-share").getDefaultValue()).isEqualTo(0.5);
        assertThat(properties.get("fenceguard.lease.renew-interval").getDescription()).contains("a third of lease-time");
    }

    /** A renamed key stays in the metadata, deprecated and pointing at its replacement, so IDEs say where it went. */
    @Test
    void theFormerObservabilityKeysAreDeprecatedInFavourOfTheObservationKeys() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties;
        try (InputStream json = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            properties = ConfigurationMetadataRepositoryJsonBuilder.create(json).build().getAllProperties();
        }
        for (String key : List.of("include-resource", "recent-events")) {
            assertThat(properties.get("fenceguard.observation." + key)).as(key).isNotNull()
                    .satisfies(current -> assertThat(current.isDeprecated()).isFalse());
            assertThat(properties.get("fenceguard.observability." + key)).as(key).isNotNull()
                    .satisfies(former -> assertThat(former.getDeprecation().getReplacement())
                            .isEqualTo("fenceguard.observation." + key));
        }
        assertThat(properties.get("fenceguard.observation.recent-events").getDefaultValue()).isEqualTo(100);
    }
}
