package io.fenceguard.spring.boot.autoconfigure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.springframework.beans.DirectFieldAccessor;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Each physical DataSource fenced exactly once, whatever the beans look like, on real databases: a
 * fenced write is stamped, a stale one refused by the database as stale (a second fence would refuse
 * every write before it reached the database), a write without a lease refused.
 */
class FencedDataSourcePostProcessorTest {

    static final String[] KINDS = ScratchDatabase.KINDS;
    /** The database of the running test, for the configuration classes below. */
    static ScratchDatabase db;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardJdbcAutoConfiguration.class))
            // The table is made by each test after start-up: the start-up catalog check is another test's.
            .withPropertyValues("fenceguard.jdbc.tables=" + FencedWrites.TABLE, "fenceguard.jdbc.verify-catalog=false");

    private void open(String kind) throws Exception {
        db = ScratchDatabase.of(kind);
        FenceguardMigrations.migrate(db.physical());
    }

    @AfterEach
    void drop() {
        if (db != null) {
            db.close();
            db = null;
        }
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void aPhysicalDataSourceBeanIsWrappedOnce(String kind) throws Exception {
        open(kind);
        runner.withUserConfiguration(PhysicalBean.class).run(context -> {
            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(dataSource).isInstanceOf(FencedDataSource.class);
            assertThat(((FencedDataSource) dataSource).target()).isSameAs(db.physical());
            FencedWrites.assertFencedOnce(dataSource, db);
        });
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void aLazyProxyOverAPoolBeanStaysOutermostAndJdbcTemplateWorksThroughIt(String kind) throws Exception {
        open(kind);
        runner.withUserConfiguration(LazyOverPoolBean.class).run(context -> {
            DataSource pool = context.getBean("pool", DataSource.class);
            LazyConnectionDataSourceProxy lazy = context.getBean("dataSource", LazyConnectionDataSourceProxy.class);
            assertThat(pool).isInstanceOf(FencedDataSource.class);
            assertThat(lazy.getTargetDataSource()).isSameAs(pool);
            FencedWrites.assertFencedOnce(lazy, db);
            FencedWrites.assertJdbcTemplateFencedOnce(context.getBean(JdbcTemplate.class),
                    context.getBean(TransactionTemplate.class), db);
        });
    }

    /**
     * A pool bean declared by its own class and given by that class to the lazy proxy over it: it keeps
     * its class (a FencedDataSource in its place would fail the injection), its connections are fenced
     * once, its other methods are the pool's, and the pool closes with the context.
     */
    @ParameterizedTest
    @FieldSource("KINDS")
    void aPoolBeanInjectedByItsClassKeepsItsClassAndIsFencedOnceUnderALazyProxy(String kind) throws Exception {
        open(kind);
        AtomicReference<HikariDataSource> physicalPool = new AtomicReference<>();
        runner.withUserConfiguration(LazyOverAPoolOfItsOwnClass.class).run(context -> {
            assertThat(context).hasNotFailed();
            HikariDataSource pool = context.getBean("pool", HikariDataSource.class);
            LazyConnectionDataSourceProxy lazy = context.getBean("dataSource", LazyConnectionDataSourceProxy.class);
            assertThat(lazy.getTargetDataSource()).isSameAs(pool);
            assertThat(FencedDataSource.isFenced(pool)).isTrue();
            DataSource underTheFence = FencedDataSource.unfenced(pool);
            assertThat(underTheFence).isInstanceOf(HikariDataSource.class).isNotSameAs(pool);
            assertThat(pool.getMaximumPoolSize()).isEqualTo(2);
            assertThat(pool.unwrap(HikariDataSource.class)).as("unwrapping does not pass the fence").isSameAs(pool);
            FencedWrites.assertFencedOnce(lazy, db);
            FencedWrites.assertFencedOnce(pool, db);
            FencedWrites.assertJdbcTemplateFencedOnce(context.getBean(JdbcTemplate.class),
                    context.getBean(TransactionTemplate.class), db);
            physicalPool.set((HikariDataSource) underTheFence);
        });
        assertThat(physicalPool.get().isClosed()).as("the pool closed with the context").isTrue();
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void aTransactionAwareProxyOverAPoolOfItsOwnHasItsTargetFenced(String kind) throws Exception {
        open(kind);
        runner.withUserConfiguration(TransactionAwareOverInlinePool.class).run(context -> {
            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(dataSource).isInstanceOf(TransactionAwareDataSourceProxy.class);
            DataSource target = ((TransactionAwareDataSourceProxy) dataSource).getTargetDataSource();
            assertThat(target).isInstanceOf(FencedDataSource.class);
            assertThat(((FencedDataSource) target).target()).isSameAs(db.physical());
            FencedWrites.assertFencedOnce(dataSource, db);
        });
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void aRoutingDataSourceHasEachTargetFencedOnce(String kind) throws Exception {
        open(kind);
        runner.withUserConfiguration(RoutingOverABeanAndAnInlinePool.class).run(context -> {
            Router router = context.getBean(Router.class);
            Map<Object, DataSource> targets = router.getResolvedDataSources();
            assertThat(targets.get("bean")).isSameAs(context.getBean("pool"));
            assertThat(targets.get("inline")).isInstanceOf(FencedDataSource.class);
            assertThat(((FencedDataSource) targets.get("inline")).target()).isNotSameAs(db.physical());
            assertThat(router.getResolvedDefaultDataSource()).isSameAs(context.getBean("pool"));
            for (String key : new String[] {"bean", "inline"}) {
                Router.KEY.set(key);
                try {
                    FencedWrites.assertFencedOnce(router, db);
                } finally {
                    Router.KEY.remove();
                }
            }
        });
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void aFencedBeanAndAPoolOverAFencedDataSourceAreNotFencedAgain(String kind) throws Exception {
        open(kind);
        runner.withUserConfiguration(AlreadyFenced.class).run(context -> {
            FencedDataSource own = context.getBean("dataSource", FencedDataSource.class);
            assertThat(own.target()).isSameAs(db.physical());
            FencedWrites.assertFencedOnce(own, db);
            // the pool has not started when the post-processor sees it; its connections are fenced already
            DataSource pool = context.getBean("pool", DataSource.class);
            FencedWrites.assertFencedOnce(pool, db);
        });
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void anExcludedBeanStaysUnfencedAlsoBehindALazyProxy(String kind) throws Exception {
        open(kind);
        runner.withUserConfiguration(LazyOverPoolBean.class).withPropertyValues("fenceguard.jdbc.excluded-beans=pool")
                .run(context -> {
                    assertThat(context.getBean("pool")).isSameAs(db.physical());
                    LazyConnectionDataSourceProxy lazy = context.getBean("dataSource",
                            LazyConnectionDataSourceProxy.class);
                    assertThat(lazy.getTargetDataSource()).isSameAs(db.physical());
                    FencedWrites.assertUnfenced(lazy, db);
                });
    }

    @ParameterizedTest
    @FieldSource("KINDS")
    void aLazyProxysReadOnlyTargetIsFencedToo(String kind) throws Exception {
        open(kind);
        runner.withUserConfiguration(LazyWithReadOnlyTarget.class).run(context -> {
            LazyConnectionDataSourceProxy lazy = context.getBean(LazyConnectionDataSourceProxy.class);
            assertThat(lazy.getTargetDataSource()).isInstanceOf(FencedDataSource.class);
            assertThat(new DirectFieldAccessor(lazy).getPropertyValue("readOnlyDataSource"))
                    .isInstanceOf(FencedDataSource.class);
            FencedWrites.assertFencedOnce(lazy, db);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class PhysicalBean {
        @Bean
        DataSource dataSource() {
            return db.physical();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LazyOverPoolBean {
        @Bean
        DataSource pool() {
            return db.physical();
        }

        @Bean
        @Primary
        LazyConnectionDataSourceProxy dataSource(@Qualifier("pool") DataSource pool) {
            return new LazyConnectionDataSourceProxy(pool);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        TransactionTemplate transactionTemplate(DataSource dataSource) {
            return new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LazyOverAPoolOfItsOwnClass {
        @Bean
        HikariDataSource pool() {
            HikariDataSource pool = new HikariDataSource();
            pool.setDataSource(db.physical());
            pool.setMaximumPoolSize(2);
            return pool;
        }

        @Bean
        @Primary
        DataSource dataSource(HikariDataSource pool) {
            return new LazyConnectionDataSourceProxy(pool);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        TransactionTemplate transactionTemplate(DataSource dataSource) {
            return new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TransactionAwareOverInlinePool {
        @Bean
        DataSource dataSource() {
            return new TransactionAwareDataSourceProxy(db.physical());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RoutingOverABeanAndAnInlinePool {
        @Bean
        DataSource pool() {
            return db.physical();
        }

        @Bean
        @Primary
        Router dataSource(@Qualifier("pool") DataSource pool) {
            Router router = new Router();
            router.setTargetDataSources(Map.of("bean", pool, "inline", db.newPhysical()));
            router.setDefaultTargetDataSource(pool);
            return router;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AlreadyFenced {
        @Bean
        @Primary
        DataSource dataSource() {
            return FencedDataSource.wrap(db.physical(), FencingConfig.builder().fence(FencedWrites.TABLE).build());
        }

        @Bean
        HikariDataSource pool(@Qualifier("dataSource") DataSource fenced) {
            HikariDataSource pool = new HikariDataSource();
            pool.setDataSource(fenced);
            pool.setMaximumPoolSize(2);
            return pool;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LazyWithReadOnlyTarget {
        @Bean
        DataSource dataSource() {
            LazyConnectionDataSourceProxy lazy = new LazyConnectionDataSourceProxy(db.physical());
            lazy.setReadOnlyDataSource(db.newPhysical());
            return lazy;
        }
    }

    static class Router extends AbstractRoutingDataSource {
        static final ThreadLocal<String> KEY = new ThreadLocal<>();

        @Override
        protected Object determineCurrentLookupKey() {
            return KEY.get();
        }
    }
}
