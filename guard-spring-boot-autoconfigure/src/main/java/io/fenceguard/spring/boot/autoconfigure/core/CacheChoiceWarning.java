package io.fenceguard.spring.boot.autoconfigure.core;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Warns once at start-up when Spring Boot's cache auto-configuration chose Redis only because a Redis client is on
 * the class path: the README asks for {@code spring-boot-starter-data-redis}, and Boot's cache types put Redis
 * before Caffeine and cache2k. So an application whose cache was Caffeine moves to Redis without a word. It warns
 * when the {@code cacheManager} is Boot's own {@code RedisCacheManager}, {@code spring.cache.type} is unset and
 * another cache library is on the class path; an application that set the type, or defined its own cache
 * manager, made its choice and hears nothing.
 */
class CacheChoiceWarning implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(CacheChoiceWarning.class);
    static final String REDIS_CACHE_MANAGER = "org.springframework.data.redis.cache.RedisCacheManager";
    /** Boot's configuration that defines the Redis cache manager when spring.cache.type is unset or redis. */
    static final String BOOT_REDIS_CACHE_CONFIGURATION = "org.springframework.boot.cache.autoconfigure.RedisCacheConfiguration";
    /** Cache libraries Boot would have chosen after Redis, by a class of each, with the spring.cache.type to keep them. */
    private static final String[][] LIBRARIES_AFTER_REDIS = {
            {"com.github.benmanes.caffeine.cache.Caffeine", "caffeine"},
            {"org.cache2k.Cache2kBuilder", "cache2k"}};

    private final ConfigurableListableBeanFactory beans;
    private final Environment environment;

    CacheChoiceWarning(ConfigurableListableBeanFactory beans, Environment environment) {
        this.beans = beans;
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        String message = warning();
        if (message != null) {
            log.warn(message);
        }
    }

    /** The warning, or {@code null} when the application's cache is as it chose. */
    String warning() {
        ClassLoader loader = beans.getBeanClassLoader();
        if (environment.containsProperty("spring.cache.type") || !ClassUtils.isPresent(REDIS_CACHE_MANAGER, loader)
                || !bootsRedisCacheManager(ClassUtils.resolveClassName(REDIS_CACHE_MANAGER, loader))) {
            return null;
        }
        List<String> others = new ArrayList<>();
        for (String[] library : LIBRARIES_AFTER_REDIS) {
            if (ClassUtils.isPresent(library[0], loader)) {
                others.add(library[1]);
            }
        }
        if (others.isEmpty()) {
            return null;
        }
        return "fenceguard: Spring Boot made Redis the application's cache (its RedisCacheManager), because a Redis "
                + "client is on the class path (the one fenceguard takes its leases on) and spring.cache.type is unset; "
                + String.join(" and ", others) + " is on the class path too, which Boot would have chosen without the "
                + "Redis client. Set spring.cache.type=" + others.get(0) + " to keep the cache where it was, or "
                + "spring.cache.type=redis to keep it in Redis; either silences this warning.";
    }

    /** A RedisCacheManager bean defined by Boot's cache auto-configuration, not by the application. */
    private boolean bootsRedisCacheManager(Class<?> redisCacheManager) {
        for (String name : beans.getBeanNamesForType(redisCacheManager, true, false)) {
            BeanDefinition definition = beans.getMergedBeanDefinition(name);
            String factory = definition.getFactoryBeanName();
            Class<?> factoryType = factory == null || !beans.containsBean(factory) ? null : beans.getType(factory, false);
            if (factoryType != null && ClassUtils.getUserClass(factoryType).getName().equals(BOOT_REDIS_CACHE_CONFIGURATION)) {
                return true;
            }
        }
        return false;
    }
}
