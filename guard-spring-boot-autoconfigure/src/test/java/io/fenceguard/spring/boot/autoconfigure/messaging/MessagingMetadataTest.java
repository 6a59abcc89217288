package io.fenceguard.spring.boot.autoconfigure.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.context.annotation.ImportCandidates;

/** The metadata of fenceguard.messaging.* as IDEs and the docs show it, and the auto-configuration's listing. */
class MessagingMetadataTest {

    @Test
    void everyMessagingPropertyHasADescriptionAndADefault() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties = new TreeMap<>();
        try (InputStream json = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(json).as("metadata written by the configuration processor").isNotNull();
            ConfigurationMetadataRepositoryJsonBuilder.create(json).build().getAllProperties().forEach((name, property) -> {
                if (name.startsWith(FenceguardMessagingProperties.PREFIX + ".")) {
                    properties.put(name, property);
                }
            });
        }
        assertThat(properties).containsOnlyKeys("fenceguard.messaging.kafka.enabled",
                "fenceguard.messaging.kafka.dead-letter-topic-suffix", "fenceguard.messaging.kafka.admit-per-poll",
                "fenceguard.messaging.rabbit.enabled",
                "fenceguard.messaging.rabbit.dead-letter-exchange");
        assertThat(properties.values()).allSatisfy(property -> {
            assertThat(property.getDescription()).as(property.getId()).isNotBlank();
            assertThat(property.getDefaultValue()).as(property.getId()).isNotNull();
        });
        assertThat(properties.get("fenceguard.messaging.kafka.enabled").getDefaultValue()).isEqualTo(true);
        assertThat(properties.get("fenceguard.messaging.rabbit.enabled").getDefaultValue()).isEqualTo(true);
        assertThat(properties.get("fenceguard.messaging.kafka.admit-per-poll").getDefaultValue()).isEqualTo(true);
        assertThat(properties.get("fenceguard.messaging.kafka.dead-letter-topic-suffix").getDefaultValue()).isEqualTo("-dlt");
        assertThat(properties.get("fenceguard.messaging.rabbit.dead-letter-exchange").getDefaultValue()).isEqualTo("");
        assertThat(properties.get("fenceguard.messaging.rabbit.dead-letter-exchange").getDescription())
                .contains("x-dead-letter-exchange");
    }

    @Test
    void theAutoConfigurationIsListedInTheImportsFile() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
                .contains(FenceguardMessagingAutoConfiguration.class.getName());
    }

    @Test
    void literalDefaultsAreTheLibrarysOwn() {
        // Spring Kafka's DeadLetterPublishingRecoverer names the dead-letter topic <topic>-dlt by default
        assertThat(new FenceguardMessagingProperties().getKafka().getDeadLetterTopicSuffix())
                .isEqualTo(org.springframework.kafka.retrytopic.RetryTopicConstants.DEFAULT_DLT_SUFFIX);
    }
}
