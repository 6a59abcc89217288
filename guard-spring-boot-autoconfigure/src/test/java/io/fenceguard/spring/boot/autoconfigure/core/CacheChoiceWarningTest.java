package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Caffeine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A caching application with Caffeine, to which the README's spring-boot-starter-data-redis is added: Boot's cache
 * auto-configuration then prefers Redis. The guard changes no cache, and warns once exactly when that happened
 * without the application's word (spring.cache.type unset, Boot's own RedisCacheManager, Caffeine there too).
 */
@ExtendWith(OutputCaptureExtension.class)
class CacheChoiceWarningTest {

    private static final String WARNING = "fenceguard: Spring Boot made Redis the application's cache";

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class CachingApplication {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, CacheAutoConfiguration.class,
                    FenceguardCacheChoiceAutoConfiguration.class))
            .withUserConfiguration(CachingApplication.class);

    @Test
    void bootsDefaultMovesTheCacheToRedisAndTheGuardSaysSoOnceWithTheSetting(CapturedOutput output) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(CacheManager.class)).isInstanceOf(RedisCacheManager.class);
            assertThat(context.getBean(CacheChoiceWarning.class).warning())
                    .contains("spring.cache.type=caffeine", "spring.cache.type=redis", "caffeine is on the class path");
        });
        assertThat(output.getOut().split(WARNING, -1)).as("one warning").hasSize(2);
    }

    @Test
    void theApplicationsOwnTypeKeepsItsCacheAndSilencesTheWarning(CapturedOutput output) {
        runner.withPropertyValues("spring.cache.type=caffeine").run(context -> {
            assertThat(context.getBean(CacheManager.class)).isInstanceOf(CaffeineCacheManager.class);
            assertThat(context.getBean(CacheChoiceWarning.class).warning()).isNull();
        });
        runner.withPropertyValues("spring.cache.type=redis").run(context -> {
            assertThat(context.getBean(CacheManager.class)).isInstanceOf(RedisCacheManager.class);
            assertThat(context.getBean(CacheChoiceWarning.class).warning()).isNull();
        });
        assertThat(output.getOut()).doesNotContain(WARNING);
    }

    @Test
    void noOtherCacheLibraryOrACacheManagerOfItsOwnMeansNoWarning(CapturedOutput output) {
        runner.withClassLoader(new FilteredClassLoader(Caffeine.class)).run(context -> {
            assertThat(context.getBean(CacheManager.class)).isInstanceOf(RedisCacheManager.class);
            assertThat(context.getBean(CacheChoiceWarning.class).warning()).isNull();
        });
        runner.withUserConfiguration(OwnRedisCache.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(CacheManager.class)).isInstanceOf(RedisCacheManager.class);
            assertThat(context.getBean(CacheChoiceWarning.class).warning()).isNull();
        });
        assertThat(output.getOut()).doesNotContain(WARNING);
    }

    /** An application that chose Redis for its cache by defining the cache manager itself. */
    @Configuration(proxyBeanMethods = false)
    static class OwnRedisCache {
        @Bean
        RedisCacheManager cacheManager(RedisConnectionFactory connectionFactory) {
            return RedisCacheManager.create(connectionFactory);
        }
    }
}
