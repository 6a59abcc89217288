package io.fenceguard.spring.boot.test;

import java.util.List;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Gives every Spring test context {@code fenceguard.lease.store=memory} in a property source of the lowest
 * precedence: a test runs without a lock store's server, while a value the application's own
 * {@code application.properties}, a profile, the environment or the test sets still wins (a file of the same name
 * under {@code src/test/resources} would hide the application's whole file instead).
 */
final class MemoryLeaseStoreContextCustomizerFactory implements ContextCustomizerFactory {

    static final String PROPERTY_SOURCE = "fenceguardTestDefaults";

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configurations) {
        return new MemoryLeaseStore();
    }

    /** One and the same for every test class, so that it never splits Spring's context cache. */
    private static final class MemoryLeaseStore implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration configuration) {
            MutablePropertySources sources = context.getEnvironment().getPropertySources();
            if (!sources.contains(PROPERTY_SOURCE)) {
                // Boot loads the application's files before customizers run: last here is below all of them.
                sources.addLast(new MapPropertySource(PROPERTY_SOURCE, Map.of("fenceguard.lease.store", "memory")));
            }
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof MemoryLeaseStore;
        }

        @Override
        public int hashCode() {
            return MemoryLeaseStore.class.hashCode();
        }
    }
}
