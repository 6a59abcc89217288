package io.fenceguard.spring.boot.autoconfigure.stores;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.jdbclock.FenceguardJdbcLockAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.redis.FenceguardRedisAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.redlock.FenceguardRedlockAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.zookeeper.FenceguardZooKeeperAutoConfiguration;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.jdbc.lease.JdbcLeaseProvider;
import io.fenceguard.redlock.RedlockLeaseProvider;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.zookeeper.ZooKeeperLeaseProvider;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code fenceguard.lease.store} = zookeeper, jdbc, redlock: each store's provider, on real servers. */
class OtherLeaseStoresTest {

    private static TestingServer zooKeeper;
    private static List<RedisProcess> masters;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardRedisAutoConfiguration.class,
                    FenceguardZooKeeperAutoConfiguration.class, FenceguardJdbcLockAutoConfiguration.class,
                    FenceguardRedlockAutoConfiguration.class, FenceguardLeaseAutoConfiguration.class));

    @BeforeAll
    static void startServers() throws Exception {
        zooKeeper = new TestingServer(true);
        masters = List.of(RedisProcess.start(), RedisProcess.start(), RedisProcess.start());
    }

    @AfterAll
    static void stopServers() throws Exception {
        zooKeeper.close();
        masters.forEach(RedisProcess::close);
    }

    /** Two leases one after the other on the context's manager; the second's token is greater. Returns it. */
    private static long leasesWork(LeaseManager manager, String resource) {
        long first;
        try (Lease lease = manager.acquire(resource, Duration.ofSeconds(5))) {
            first = lease.token().value();
            try (LeaseManager other = LeaseManager.of(manager.provider())) {
                assertThat(other.tryAcquire(resource)).isEmpty();
            }
        }
        try (Lease lease = manager.acquire(resource, Duration.ofSeconds(5))) {
            assertThat(lease.token().value()).isGreaterThan(first);
            return lease.token().value();
        }
    }

    @Test
    void zookeeperFromTheConnectStringWithAClientOfItsOwnClosedWithTheContext() {
        AtomicReference<CuratorFramework> made = new AtomicReference<>();
        runner.withPropertyValues("fenceguard.lease.store=zookeeper",
                        "fenceguard.zookeeper.connect-string=" + zooKeeper.getConnectString(),
                        "fenceguard.zookeeper.base-path=/boot-test/leases")
                .run(context -> {
                    assertThat(context).hasSingleBean(ZooKeeperLeaseProvider.class).hasSingleBean(CuratorFramework.class);
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    assertThat(manager.provider()).isSameAs(context.getBean(LeaseProvider.class));
                    leasesWork(manager, "boot:zk");
                    CuratorFramework curator = context.getBean(CuratorFramework.class);
                    made.set(curator);
                    assertThat(curator.checkExists().forPath("/boot-test/leases")).isNotNull();
                });
        assertThat(made.get().getState()).isEqualTo(CuratorFrameworkState.STOPPED);
    }

    @Test
    void zookeeperOnTheApplicationsCuratorClientWhichStaysOpen() throws Exception {
        try (CuratorFramework own = CuratorFrameworkFactory.newClient(zooKeeper.getConnectString(), new RetryOneTime(100))) {
            own.start();
            // The application closes its client itself (here: the try block), so the context must not.
            runner.withBean(CuratorFramework.class, () -> own, definition -> definition.setDestroyMethodName(""))
                    .withPropertyValues("fenceguard.lease.store=zookeeper")
                    .run(context -> {
                        assertThat(context).hasSingleBean(CuratorFramework.class);
                        leasesWork(context.getBean(LeaseManager.class), "boot:zk-own");
                    });
            assertThat(own.getState()).isEqualTo(CuratorFrameworkState.STARTED);
        }
    }

    @Test
    void zookeeperWithoutAClientOrAConnectStringFailsStartupSayingWhatToAdd() {
        runner.withPropertyValues("fenceguard.lease.store=zookeeper").run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining("fenceguard.zookeeper.connect-string"));
    }

    @Test
    void jdbcOnTheApplicationsDataSourceWithTheTableCreated() {
        try (ScratchSpace scratch = ScratchSpace.create(TestServers.postgres(), "bootlease");
             HikariDataSource dataSource = new HikariDataSource()) {
            dataSource.setJdbcUrl(scratch.jdbcUrl());
            dataSource.setUsername(scratch.server().user());
            dataSource.setPassword(scratch.server().password());
            if (scratch.schema() != null) {
                dataSource.setSchema(scratch.schema()); // the scratch schema, not the server's default
            }
            runner.withBean(DataSource.class, () -> dataSource)
                    .withPropertyValues("fenceguard.lease.store=jdbc", "fenceguard.jdbc-lock.table-name=boot_lease",
                            "fenceguard.jdbc-lock.max-poll=50ms")
                    .run(context -> {
                        assertThat(context).hasSingleBean(JdbcLeaseProvider.class);
                        long last = leasesWork(context.getBean(LeaseManager.class), "boot:jdbc");
                        try (Connection c = dataSource.getConnection();
                             ResultSet rows = c.createStatement().executeQuery(
                                     "SELECT token FROM boot_lease WHERE resource = 'boot:jdbc'")) {
                            assertThat(rows.next()).isTrue();
                            assertThat(rows.getLong(1)).isEqualTo(last);
                        }
                    });
            runner.withBean(DataSource.class, () -> dataSource)
                    .withPropertyValues("fenceguard.lease.store=jdbc", "fenceguard.jdbc-lock.statement-timeout=10ms")
                    .run(context -> assertThat(context).hasFailed().getFailure()
                            .hasStackTraceContaining("fenceguard.jdbc-lock").hasStackTraceContaining("statementTimeout"));
        }
    }

    @Test
    void jdbcWithoutADataSourceFailsStartupSayingWhatToAdd() {
        runner.withPropertyValues("fenceguard.lease.store=jdbc").run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining("fenceguard-jdbc-lease").hasStackTraceContaining("DataSource"));
    }

    @Test
    void redlockWithoutAddressesFailsStartupSayingWhatToSet() {
        runner.withPropertyValues("fenceguard.lease.store=redlock").run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining("fenceguard.redlock.addresses"));
        runner.withPropertyValues("fenceguard.lease.store=redlock", "fenceguard.redlock.addresses=" + masters.get(0).uri(),
                        "fenceguard.redlock.drift-factor=0.7")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("invalid fenceguard.redlock.* properties")
                        .hasStackTraceContaining("driftFactor"));
    }

    @Test
    void theseStoresAreOnlyTakenWhenAskedFor() {
        runner.withPropertyValues("fenceguard.zookeeper.connect-string=" + zooKeeper.getConnectString(),
                        "fenceguard.redlock.addresses=" + masters.get(0).uri(), "fenceguard.lease.store=memory")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(ZooKeeperLeaseProvider.class)
                            .doesNotHaveBean(RedlockLeaseProvider.class).doesNotHaveBean(JdbcLeaseProvider.class)
                            .doesNotHaveBean(RedissonClient.class).doesNotHaveBean(CuratorFramework.class);
                });
    }
}
