package io.fenceguard.spring.boot.autoconfigure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redis.JdbcTokenEpochSource;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.redis.springdata.SpringDataRedisScriptClient;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;

/** The Redis lease provider on the application's RedissonClient, from fenceguard.redis.* properties, on a real Redis. */
class FenceguardRedisAutoConfigurationTest {

    private static final RedissonClient redisson = TestRedisson.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardRedisAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class))
            .withPropertyValues("fenceguard.redis.key-prefix=fgauto" + System.nanoTime() + ":");

    @Test
    void leasesOnTheApplicationsRedissonClientWithTheBoundProperties() {
        runner.withBean(RedissonClient.class, () -> redisson)
                .withPropertyValues("fenceguard.lease.lease-time=7s", "fenceguard.lease.default-wait=2s",
                        "fenceguard.lease.client-name=orders", "fenceguard.redis.lock-delay=250ms",
                        "fenceguard.redis.key-prefix=fgorders:", "fenceguard.redis.circuit-breaker.sliding-window-size=20")
                .run(context -> {
                    assertThat(context).hasSingleBean(LeaseManager.class).hasSingleBean(RedissonClient.class)
                            .hasSingleBean(LeaseProvider.class);
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    LeaseConfig config = manager.config();
                    assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(config.renewInterval()).isEqualTo(Duration.ofSeconds(7).dividedBy(3));
                    assertThat(config.defaultWait()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(manager.clientId()).startsWith("orders-");
                    RedisLeaseProvider provider = (RedisLeaseProvider) manager.provider();
                    assertThat(provider.config().lockDelay()).isEqualTo(Duration.ofMillis(250));
                    assertThat(provider.config().keyPrefix()).isEqualTo("fgorders:");
                    assertThat(provider.circuitBreaker().getCircuitBreakerConfig().getSlidingWindowSize()).isEqualTo(20);
                    String resource = "auto:" + System.nanoTime();
                    try (Lease lease = manager.acquire(resource, Duration.ofSeconds(1))) {
                        assertThat(lease.token().value()).isPositive();
                        // The lock is in Redis under the configured prefix, not only in this JVM.
                        assertThat(redisson.getKeys().getKeysByPattern("fgorders:*" + resource + "*")).isNotEmpty();
                    }
                });
    }

    @Test
    void withoutARedissonClientLeasesGoThroughTheApplicationsJedisPool() {
        String prefix = "fgjedis" + System.nanoTime() + ":";
        runner.withBean(JedisPool.class, () -> new JedisPool(URI.create(TestServers.redis().uri())))
                .withPropertyValues("fenceguard.redis.key-prefix=" + prefix)
                .run(context -> {
                    assertThat(context).hasSingleBean(LeaseProvider.class).doesNotHaveBean(RedissonClient.class);
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    assertThat(manager.provider().describe()).contains("via Jedis");
                    String resource = "jedis:" + System.nanoTime();
                    try (Lease lease = manager.acquire(resource, Duration.ofSeconds(1));
                         Jedis jedis = context.getBean(JedisPool.class).getResource()) {
                        assertThat(lease.token().value()).isPositive();
                        assertThat(jedis.keys(prefix + "*" + resource + "*")).isNotEmpty();
                    }
                });
    }

    @Test
    void withBothARedissonClientAndAJedisPoolRedissonIsUsed() {
        runner.withBean(RedissonClient.class, () -> redisson)
                .withBean(JedisPool.class, () -> new JedisPool(URI.create(TestServers.redis().uri())))
                .run(context -> {
                    assertThat(context).hasSingleBean(LeaseProvider.class);
                    assertThat(context.getBean(LeaseProvider.class).describe()).contains("via Redisson");
                });
    }

    @Test
    void tokensOnADatabaseSequenceByDefaultWithADataSourceAndOnTheClockFloorWithoutOrWhenAskedFor(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path files) {
        // A database on a file: one that outlives the application (an in-memory one gives no durable epoch).
        String db = "jdbc:h2:file:" + files.resolve("epoch").toAbsolutePath();
        java.util.function.Supplier<javax.sql.DataSource> h2 = () -> {
            org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
            ds.setURL(db);
            return ds;
        };
        runner.withBean(RedissonClient.class, () -> redisson).withBean(javax.sql.DataSource.class, h2)
                .withPropertyValues("fenceguard.redis.token-epoch-sequence=app_epochs")
                .run(context -> {
                    RedisLeaseProvider provider = context.getBean(RedisLeaseProvider.class);
                    assertThat(provider.config().tokenEpochSource()).as("no fenceguard.redis.token-epoch set")
                            .isInstanceOf(JdbcTokenEpochSource.class);
                    try (Lease lease = context.getBean(LeaseManager.class).acquire("epoch:" + System.nanoTime(), Duration.ofSeconds(1))) {
                        assertThat(provider.epochsTaken()).isEqualTo(1);
                        assertThat(lease.token().value()).isPositive();
                    }
                    try (var c = java.sql.DriverManager.getConnection(db);
                         var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SEQUENCES "
                                 + "WHERE SEQUENCE_NAME = 'APP_EPOCHS'")) {
                        rs.next();
                        assertThat(rs.getInt(1)).as("the sequence in the application's database").isEqualTo(1);
                    }
                    long highest = provider.config().tokenEpochSource().highestEpoch();
                    assertThat(provider.config().tokenEpochSource().nextEpoch()).as("H2's highest epoch read")
                            .isEqualTo(highest + 1);
                });
        runner.withBean(RedissonClient.class, () -> redisson).withBean(javax.sql.DataSource.class, h2)
                .withPropertyValues("fenceguard.redis.token-epoch=clock", "fenceguard.redis.key-prefix=fgclock" + System.nanoTime() + ":")
                .run(context -> assertThat(context.getBean(RedisLeaseProvider.class).config().tokenEpochSource())
                        .as("the clock floor when asked for").isNull());
        runner.withBean(RedissonClient.class, () -> redisson)
                .withPropertyValues("fenceguard.redis.key-prefix=fgnods" + System.nanoTime() + ":").run(context ->
                assertThat(context.getBean(RedisLeaseProvider.class).config().tokenEpochSource())
                        .as("no DataSource: the clock floor").isNull());
        // Another client of the first store on the clock floor is refused: the store records its epoch source.
        runner.withBean(RedissonClient.class, () -> redisson)
                .withPropertyValues("fenceguard.redis.token-epoch=clock")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("PUBLIC.APP_EPOCHS").hasMessageContaining("clock floor"));
        runner.withBean(RedissonClient.class, () -> redisson).withPropertyValues("fenceguard.redis.token-epoch=database")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .rootCause().hasMessageContaining("fenceguard.redis.token-epoch=database needs one DataSource"));
    }

    @Test
    void consumesTheRedissonStartersClientWithoutCreatingAnother() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                        RedissonAutoConfigurationV4.class, FenceguardRedisAutoConfiguration.class,
                        FenceguardLeaseAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + TestServers.redis().host(),
                        "spring.data.redis.port=" + TestServers.redis().port(),
                        "fenceguard.redis.key-prefix=fgstarter" + System.nanoTime() + ":")
                .run(context -> {
                    assertThat(context).hasSingleBean(RedissonClient.class).hasSingleBean(LeaseManager.class);
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    assertThat(manager.provider()).isInstanceOf(RedisLeaseProvider.class);
                    try (Lease lease = manager.acquire("starter:" + System.nanoTime(), Duration.ofSeconds(1))) {
                        assertThat(lease.isValid()).isTrue();
                    }
                });
    }

    @Test
    void circuitBreakerComesFromTheRegistryWhenThereIsOne() {
        var registry = io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry.ofDefaults();
        runner.withBean(RedissonClient.class, () -> redisson)
                .withBean(io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry.class, () -> registry)
                .withPropertyValues("fenceguard.redis.name=orders-redis",
                        "fenceguard.redis.circuit-breaker.open-state-duration=3s")
                .run(context -> {
                    RedisLeaseProvider provider = context.getBean(RedisLeaseProvider.class);
                    assertThat(registry.circuitBreaker("orders-redis")).isSameAs(provider.circuitBreaker());
                    assertThat(provider.circuitBreaker().getCircuitBreakerConfig()
                            .getWaitIntervalFunctionInOpenState().apply(1)).isEqualTo(3000L);
                });
    }

    /** Boot's Redis auto-configuration (Lettuce by default) and Redisson hidden from the class path. */
    private static ApplicationContextRunner withBootsRedis() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                        FenceguardRedisAutoConfiguration.class, FenceguardLeaseAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + TestServers.redis().host(),
                        "spring.data.redis.port=" + TestServers.redis().port());
    }

    @Test
    void withoutRedissonLeasesGoThroughBootsLettuceConnectionFactoryWhichStaysBoots() {
        String prefix = "fglettuce" + System.nanoTime() + ":";
        withBootsRedis().withClassLoader(new FilteredClassLoader("org.redisson"))
                .withPropertyValues("fenceguard.redis.key-prefix=" + prefix)
                .run(context -> {
                    assertThat(context).hasSingleBean(LeaseProvider.class).hasSingleBean(RedisConnectionFactory.class);
                    assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(LettuceConnectionFactory.class);
                    assertThat(context.getBean(RedisScriptClient.class)).isInstanceOf(SpringDataRedisScriptClient.class);
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    assertThat(manager.provider().describe()).contains("via Spring Data Redis (Lettuce)");
                    String resource = "lettuce:" + System.nanoTime();
                    try (Lease lease = manager.acquire(resource, Duration.ofSeconds(10))) {
                        assertThat(lease.token().value()).isPositive();
                        // The lock is in Redis under the configured prefix, seen through the application's template.
                        assertThat(context.getBean(StringRedisTemplate.class).keys(prefix + "*" + resource + "*"))
                                .isNotEmpty();
                    }
                });
    }

    @Test
    void onBootsJedisConnectionFactoryLeasesGoThroughItsConnections() {
        String prefix = "fgsdjedis" + System.nanoTime() + ":";
        withBootsRedis().withClassLoader(new FilteredClassLoader("org.redisson"))
                .withPropertyValues("spring.data.redis.client-type=jedis", "fenceguard.redis.key-prefix=" + prefix)
                .run(context -> {
                    assertThat(context).hasSingleBean(LeaseProvider.class);
                    assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    assertThat(manager.provider().describe()).contains("via Spring Data Redis (Jedis)");
                    String resource = "sdjedis:" + System.nanoTime();
                    try (Lease lease = manager.acquire(resource, Duration.ofSeconds(10))) {
                        assertThat(lease.token().value()).isPositive();
                        assertThat(context.getBean(StringRedisTemplate.class).keys(prefix + "*" + resource + "*"))
                                .isNotEmpty();
                    }
                });
    }

    @Test
    void withARedissonClientBesideBootsConnectionFactoryRedissonIsUsed() {
        withBootsRedis().withBean(RedissonClient.class, () -> redisson)
                .run(context -> {
                    assertThat(context).hasSingleBean(LeaseProvider.class).hasSingleBean(RedisConnectionFactory.class);
                    assertThat(context.getBean(RedisScriptClient.class)).isNotInstanceOf(SpringDataRedisScriptClient.class);
                    assertThat(context.getBean(LeaseProvider.class).describe()).contains("via Redisson");
                });
    }

    /** Two factories and no other client: fenceguard picks none of them, and startup fails for want of a store. */
    @Test
    void twoConnectionFactoriesAndNoOtherClientGiveNoRedisLeaseProvider() {
        runner.withClassLoader(new FilteredClassLoader("org.redisson"))
                .withBean("one", RedisConnectionFactory.class, () -> new LettuceConnectionFactory("127.0.0.1", 1))
                .withBean("two", RedisConnectionFactory.class, () -> new LettuceConnectionFactory("127.0.0.1", 2))
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasMessageContaining("fenceguard has no lease store: no LeaseProvider bean"));
    }

    @Test
    void propertyDefaultsAreTheLibraryDefaults() {
        assertThat(new FenceguardRedisProperties().toRedisLeaseConfig()).usingRecursiveComparison()
                .isEqualTo(RedisLeaseConfig.defaults());
    }

    @Test
    void replicaAcknowledgementsAreTheProvidersChoiceUnlessSet() {
        FenceguardRedisProperties properties = new FenceguardRedisProperties();
        assertThat(properties.toRedisLeaseConfig().replicaAcknowledgements()).isEqualTo(-1);
        properties.setReplicaTimeout(Duration.ofMillis(800));
        assertThat(properties.toRedisLeaseConfig().replicaAcknowledgements()).isEqualTo(-1);
        assertThat(properties.toRedisLeaseConfig().replicaTimeout()).isEqualTo(Duration.ofMillis(800));
        runner.withBean(RedissonClient.class, () -> redisson)
                .withPropertyValues("fenceguard.redis.replica-acknowledgements=0", "fenceguard.redis.replica-timeout=2s")
                .run(context -> {
                    RedisLeaseConfig config = context.getBean(RedisLeaseProvider.class).config();
                    assertThat(config.replicaAcknowledgements()).isZero();
                    assertThat(config.replicaTimeout()).isEqualTo(Duration.ofSeconds(2));
                });
        runner.withBean(RedissonClient.class, () -> redisson)
                .withPropertyValues("fenceguard.redis.replica-acknowledgements=-2")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("invalid fenceguard.redis.* properties: replicas must not be negative"));
    }

    @Test
    void invalidPropertiesFailStartupNamingThePrefix() {
        runner.withBean(RedissonClient.class, () -> redisson).withPropertyValues("fenceguard.redis.key-prefix={fg}:")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("invalid fenceguard.redis.* properties: keyPrefix must not contain braces"));
    }
}
