package io.fenceguard.spring.boot.autoconfigure.db;

import io.fenceguard.db.FenceguardMigrations.Feature;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The features whose tables {@code fenceguard.db.features} asks for: {@code auto} reads them from the
 * application's bean definitions and properties, before any bean that uses the database is created.
 */
final class MigratedFeatures {

    static final String PROPERTY = "fenceguard.db.features";
    private static final String HIGH_WATER_STORE = "io.fenceguard.admission.HighWaterStore";
    private static final String JDBC_HIGH_WATER_STORE = "io.fenceguard.jdbc.admission.JdbcHighWaterStore";
    private static final String OUTBOX_RELAY = "io.fenceguard.messaging.outbox.OutboxRelay";

    private MigratedFeatures() {
    }

    /**
     * @throws IllegalStateException naming the property and the values it takes, for an unknown value, an
     *                               empty list, or {@code none} with anything else
     */
    static Set<Feature> resolve(List<String> setting, ConfigurableListableBeanFactory beans, Environment environment) {
        List<String> values = setting.stream().map(value -> value.trim().toLowerCase(Locale.ROOT)).toList();
        if (values.isEmpty() || (values.contains("none") && values.size() > 1)) {
            throw invalid(setting, "none stands alone, and an empty list means nothing");
        }
        Set<Feature> features = EnumSet.noneOf(Feature.class);
        for (String value : values) {
            switch (value) {
                case "none" -> { }
                case "all" -> features.addAll(EnumSet.allOf(Feature.class));
                case "auto" -> features.addAll(inUse(beans, environment));
                default -> {
                    try {
                        features.add(Feature.named(value));
                    } catch (IllegalArgumentException e) {
                        throw invalid(setting, e.getMessage());
                    }
                }
            }
        }
        return features;
    }

    /** The features the application uses, read from its bean definitions and properties. */
    static Set<Feature> inUse(ConfigurableListableBeanFactory beans, Environment environment) {
        Set<Feature> features = EnumSet.noneOf(Feature.class);
        ClassLoader loader = beans.getBeanClassLoader();
        if (ClassUtils.isPresent("io.fenceguard.jdbc.FencedDataSource", loader)
                && environment.getProperty("fenceguard.jdbc.enabled", Boolean.class, true)) {
            features.add(Feature.SQL_FENCING);
        }
        if (jdbcHighWaterStore(beans, environment, loader)) {
            features.add(Feature.ADMISSION);
        }
        if (ClassUtils.isPresent(OUTBOX_RELAY, loader)
                && beans.getBeanNamesForType(ClassUtils.resolveClassName(OUTBOX_RELAY, loader), true, false).length > 0) {
            features.add(Feature.OUTBOX);
        }
        return features;
    }

    /**
     * A high-water store bean (HTTP endpoints, message consumers) that keeps its marks in the database: a
     * JdbcHighWaterStore by its declared type, or the guard's own store with {@code fenceguard.http.store.type=jdbc}.
     */
    private static boolean jdbcHighWaterStore(ConfigurableListableBeanFactory beans, Environment environment,
            ClassLoader loader) {
        if (!ClassUtils.isPresent(HIGH_WATER_STORE, loader)) {
            return false;
        }
        Class<?> store = ClassUtils.resolveClassName(HIGH_WATER_STORE, loader);
        Class<?> jdbc = ClassUtils.resolveClassName(JDBC_HIGH_WATER_STORE, loader);
        boolean storeTypeJdbc = "jdbc".equalsIgnoreCase(environment.getProperty("fenceguard.http.store.type", "memory"));
        for (String name : beans.getBeanNamesForType(store, true, false)) {
            Class<?> type = beans.getType(name, false);
            if (storeTypeJdbc || type != null && jdbc.isAssignableFrom(type)) {
                return true;
            }
        }
        return false;
    }

    private static IllegalStateException invalid(List<String> setting, String why) {
        return new IllegalStateException(PROPERTY + "=" + String.join(",", setting) + " is not a choice of the guard's"
                + " tables (" + why + "): set auto, all, none, or a list of sql-fencing, admission, outbox");
    }
}
