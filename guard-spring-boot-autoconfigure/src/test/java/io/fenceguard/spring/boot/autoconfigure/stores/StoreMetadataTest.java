package io.fenceguard.spring.boot.autoconfigure.stores;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;

/** The metadata of the ZooKeeper, etcd, Hazelcast, database and Redlock stores' properties, as IDEs show them. */
class StoreMetadataTest {

    /** Where the servers are: no default can be right. */
    private static final Set<String> NO_DEFAULT = Set.of("fenceguard.zookeeper.connect-string", "fenceguard.etcd.endpoints",
            "fenceguard.redlock.addresses", "fenceguard.redlock.password");

    @Test
    void everyStorePropertyHasADescriptionAndADefault() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties = new TreeMap<>();
        try (InputStream json = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(json).isNotNull();
            ConfigurationMetadataRepositoryJsonBuilder.create(json).build().getAllProperties().forEach((name, property) -> {
                if (name.startsWith("fenceguard.zookeeper.") || name.startsWith("fenceguard.etcd.")
                        || name.startsWith("fenceguard.hazelcast.")
                        || name.startsWith("fenceguard.jdbc-lease.")
                        || name.startsWith("fenceguard.redlock.")) {
                    properties.put(name, property);
                }
            });
        }
        assertThat(properties).containsOnlyKeys("fenceguard.zookeeper.connect-string", "fenceguard.zookeeper.base-path",
                "fenceguard.zookeeper.session-timeout", "fenceguard.zookeeper.connection-timeout",
                "fenceguard.etcd.endpoints", "fenceguard.etcd.key-prefix", "fenceguard.etcd.call-timeout",
                "fenceguard.hazelcast.lock-name-prefix", "fenceguard.hazelcast.cp-group", "fenceguard.hazelcast.call-timeout",
                "fenceguard.jdbc-lease.table-name", "fenceguard.jdbc-lease.create-table",
                "fenceguard.jdbc-lease.statement-timeout", "fenceguard.jdbc-lease.min-poll", "fenceguard.jdbc-lease.max-poll",
                "fenceguard.jdbc-lease.renew-threads", "fenceguard.redlock.addresses", "fenceguard.redlock.password",
                "fenceguard.redlock.key-prefix", "fenceguard.redlock.master-timeout", "fenceguard.redlock.drift-factor",
                "fenceguard.redlock.min-drift", "fenceguard.redlock.min-retry", "fenceguard.redlock.max-retry",
                "fenceguard.redlock.connect-timeout");
        assertThat(properties.values()).allSatisfy(property -> {
            assertThat(property.getDescription()).as(property.getId()).isNotBlank();
            if (!NO_DEFAULT.contains(property.getId())) {
                assertThat(property.getDefaultValue()).as(property.getId()).isNotNull();
            }
        });
        assertThat(properties.get("fenceguard.zookeeper.base-path").getDefaultValue()).isEqualTo("/fenceguard/leases");
        assertThat(properties.get("fenceguard.etcd.key-prefix").getDefaultValue()).isEqualTo("fenceguard/leases/");
        assertThat(properties.get("fenceguard.etcd.call-timeout").getDefaultValue()).isEqualTo("2s");
        assertThat(properties.get("fenceguard.hazelcast.lock-name-prefix").getDefaultValue()).isEqualTo("fenceguard:");
        assertThat(properties.get("fenceguard.hazelcast.cp-group").getDefaultValue()).isEqualTo("default");
        assertThat(properties.get("fenceguard.hazelcast.call-timeout").getDefaultValue()).isEqualTo("5s");
        assertThat(properties.get("fenceguard.redlock.master-timeout").getDefaultValue()).isEqualTo("100ms");
        assertThat(properties.get("fenceguard.jdbc-lease.table-name").getDefaultValue()).isEqualTo("fenceguard_lease");
    }
}
