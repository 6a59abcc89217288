package io.fenceguard.spring.boot.autoconfigure.core;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The cache warning ({@link CacheChoiceWarning}) where Boot's cache auto-configuration and Spring Data Redis' cache
 * manager are both on the class path. It changes no cache: the choice is the application's.
 */
@AutoConfiguration(afterName = "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration")
@ConditionalOnClass(name = {"org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration",
        CacheChoiceWarning.REDIS_CACHE_MANAGER})
public class FenceguardCacheChoiceAutoConfiguration {

    @Bean
    static CacheChoiceWarning fenceguardCacheChoiceWarning(ConfigurableListableBeanFactory beans,
            Environment environment) {
        return new CacheChoiceWarning(beans, environment);
    }
}
