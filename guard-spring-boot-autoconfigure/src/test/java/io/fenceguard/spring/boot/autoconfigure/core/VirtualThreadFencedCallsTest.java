package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseObserver;
import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.spring.boot.autoconfigure.jdbc.ScratchDatabase;
import io.fenceguard.spring.boot.autoconfigure.redis.FenceguardRedisAutoConfiguration;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code @Fenced} under {@code spring.threads.virtual.enabled=true}: thousands of virtual threads (Boot's own
 * task executor) each hold a lease on the real Redis (Lettuce, through Spring Data Redis) for several renewal
 * intervals, and write fenced rows to PostgreSQL before and after. Every call must get
 * its lease, see it in its own LeaseContext, and write with its token; the whole run has a bounded wait, so a
 * carrier pinned by a monitor held around a blocking call fails it instead of hanging. Virtual threads need
 * JDK 21: the JDK 25 pass of the build runs it.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadFencedCallsTest {

    private static final int CALLS = 2_000;
    private static final Duration LEASE_TIME = Duration.ofSeconds(6);
    private static final Duration RENEW_INTERVAL = Duration.ofSeconds(1);
    /** Three renewals' time and more: each lease is renewed while its call holds it. */
    private static final Duration HOLD = RENEW_INTERVAL.multipliedBy(3).plusMillis(500);
    private static final Duration BOUND = Duration.ofMinutes(3);

    private static ScratchDatabase db;
    private static HikariDataSource pool;

    @BeforeAll
    static void database() throws Exception {
        db = ScratchDatabase.of("postgresql");
        FenceguardMigrations.migrate(db.physical());
        db.execute("CREATE TABLE vt_calls (id INT PRIMARY KEY, writes INT NOT NULL, current_token BIGINT)");
        pool = new HikariDataSource();
        pool.setDataSource(db.physical());
        pool.setMaximumPoolSize(10);
        pool.setConnectionTimeout(BOUND.toMillis());
    }

    @AfterAll
    static void drop() {
        if (pool != null) {
            pool.close();
        }
        if (db != null) {
            db.close();
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withClassLoader(new FilteredClassLoader("org.redisson"))
            .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class, AopAutoConfiguration.class,
                    DataRedisAutoConfiguration.class, FenceguardRedisAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class, FenceguardFencedMethodAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true",
                    "spring.data.redis.host=" + TestServers.redis().host(),
                    "spring.data.redis.port=" + TestServers.redis().port(),
                    "fenceguard.redis.key-prefix=fgvt" + System.nanoTime() + ":",
                    "fenceguard.lease.lease-time=" + LEASE_TIME.toMillis() + "ms",
                    "fenceguard.lease.renew-interval=" + RENEW_INTERVAL.toMillis() + "ms",
                    // 2,000 first grants at once on a small machine shared with other builds: more than the
                    // default second per Redis call, well within the lease time
                    "fenceguard.redis.call-timeout=3s")
            .withUserConfiguration(Wiring.class);

    @Configuration(proxyBeanMethods = false)
    static class Wiring {

        @Bean
        DataSource dataSource() {
            return FencedDataSource.wrap(pool, FencingConfig.builder().fence("vt_calls").build());
        }

        @Bean
        Calls calls(DataSource dataSource) {
            return new Calls(new JdbcTemplate(dataSource));
        }
    }

    /** What one call saw: its lease on entry and after the hold, and the thread it ran on. */
    public record Call(int id, String resource, long token, String resourceAfterHold, long tokenAfterHold,
                boolean virtual, boolean contextEmptyAfter) {
    }

    public static class Calls {

        private final JdbcTemplate jdbc;

        public Calls(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /** Writes, holds the lease while it is renewed, writes again: both writes carry the lease's token. */
        @Fenced("'vt:' + #id")
        public Call write(int id) throws InterruptedException {
            Lease entered = LeaseContext.requireValid();
            jdbc.update("INSERT INTO vt_calls (id, writes) VALUES (?, 1)", id);
            Thread.sleep(HOLD.toMillis());
            Lease held = LeaseContext.requireValid();  // throws when the lease was lost meanwhile
            jdbc.update("UPDATE vt_calls SET writes = writes + 1 WHERE id = ?", id);
            return new Call(id, entered.resource().value(), entered.token().value(), held.resource().value(),
                    held.token().value(), isVirtual(Thread.currentThread()), false);
        }
    }

    @Test
    void thousandsOfVirtualThreadsEachHoldARenewedLeaseAndWriteWithItsToken() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            LeaseManager manager = context.getBean(LeaseManager.class);
            Map<String, AtomicLong> renewals = new ConcurrentHashMap<>();
            manager.addObserver(new LeaseObserver() {
                @Override
                public void renewed(Lease lease, Duration roundTrip) {
                    renewals.computeIfAbsent(lease.resource().value(), r -> new AtomicLong()).incrementAndGet();
                }
            });
            AsyncTaskExecutor executor = context.getBean("applicationTaskExecutor", AsyncTaskExecutor.class);
            Calls calls = context.getBean(Calls.class);

            long start = System.nanoTime();
            List<CompletableFuture<Call>> futures = new ArrayList<>(CALLS);
            for (int i = 0; i < CALLS; i++) {
                int id = i;
                futures.add(executor.submitCompletable(() -> {
                    Call call = calls.write(id);
                    return new Call(call.id(), call.resource(), call.token(), call.resourceAfterHold(),
                            call.tokenAfterHold(), call.virtual(), LeaseContext.current().isEmpty());
                }));
            }
            // Bounded: a carrier pinned while another virtual thread needs it would leave calls unfinished.
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
            long wallNanos = System.nanoTime() - start;
            List<Call> done = futures.stream().map(CompletableFuture::join).toList();

            Map<Integer, Long> stored = new JdbcTemplate(pool).query("SELECT id, current_token, writes FROM vt_calls",
                    (row, n) -> {
                        assertThat(row.getInt("writes")).as("writes of call %d", row.getInt("id")).isEqualTo(2);
                        return Map.entry(row.getInt("id"), row.getLong("current_token"));
                    }).stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
            long renewed = renewals.values().stream().mapToLong(AtomicLong::get).sum();
            double seconds = wallNanos / 1e9;
            System.out.printf("virtual threads: %d @Fenced calls in %.2f s (%.0f leases/s), each held %d ms on a %d ms "
                            + "lease; %d renewals, %d leases renewed%n", CALLS, seconds, CALLS / seconds,
                    HOLD.toMillis(), LEASE_TIME.toMillis(), renewed, renewals.size());

            assertThat(done).hasSize(CALLS).allSatisfy(call -> {
                String resource = "vt:" + call.id();
                assertThat(call.virtual()).as("call %d ran on a virtual thread", call.id()).isTrue();
                assertThat(call.resource()).isEqualTo(resource);
                assertThat(call.resourceAfterHold()).as("the context of call %d after the hold", call.id())
                        .isEqualTo(resource);
                assertThat(call.tokenAfterHold()).isEqualTo(call.token());
                assertThat(call.token()).isPositive();
                assertThat(call.contextEmptyAfter()).as("no lease left bound after call %d", call.id()).isTrue();
                assertThat(stored.get(call.id())).as("the row of call %d carries its token", call.id())
                        .isEqualTo(call.token());
            });
            Set<String> resources = done.stream().map(Call::resource).collect(Collectors.toSet());
            assertThat(renewals.keySet()).as("every lease was renewed while held").isEqualTo(resources);
            assertThat(manager.heldLeases()).as("every lease released").isEmpty();
        });
    }

    /** {@code Thread.isVirtual()}, a JDK 21 method, called on the JDK the test runs on (the code targets 17). */
    private static boolean isVirtual(Thread thread) {
        try {
            return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
