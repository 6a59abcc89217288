package io.fenceguard.spring.boot.autoconfigure.observation;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.Refusal;
import io.fenceguard.core.RefusalListener;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageRefusedException;
import io.fenceguard.redis.RedisLeaseConfig;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.spring.observation.FenceguardActivity;
import io.fenceguard.spring.observation.ObservedLeases;
import io.fenceguard.spring.observation.ObservedRefusals;
import io.fenceguard.test.support.TestRedisson;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Observations of leases and refusals on real Redis, through Boot's observation and metrics
 * auto-configuration: the same observation gives the meter and what a tracing handler sees; no meter tag
 * names a resource. And the {@code fenceguard} actuator endpoint: leases, high-water marks, refusals, release.
 */
class FenceguardObservationTest {

    /** Stands for a tracing bridge: every observation it is handed, as a span would be. */
    static final class Spans implements ObservationHandler<Observation.Context> {
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    private final PausableLeaseProvider provider = PausableLeaseProvider.wrap(RedisLeaseProvider.of(RedissonScriptClient.of(TestRedisson.shared()),
            RedisLeaseConfig.builder().keyPrefix("fgobsv" + UUID.randomUUID().toString().substring(0, 6) + ":")
                    .lockDelay(Duration.ofMillis(100)).build()));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class, FenceguardObservationAutoConfiguration.class))
            .withBean(LeaseProvider.class, () -> provider)
            .withBean(Spans.class, Spans::new)
            .withPropertyValues("fenceguard.lease.lease-time=600ms", "management.endpoints.web.exposure.include=fenceguard");

    @Test
    void acquireAndLossAreObservationsGivingMetersAndSpansWithoutResourceNames() {
        runner.run(context -> {
            LeaseManager manager = context.getBean(LeaseManager.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Spans spans = context.getBean(Spans.class);
            String resource = "obs:" + UUID.randomUUID();
            Lease held = manager.acquire(resource, Duration.ofSeconds(2));
            Thread other = new Thread(() -> {
                try {
                    manager.acquire(resource, Duration.ofMillis(500));
                } catch (LeaseTimeoutException expected) {
                    // observed as not obtained
                }
            });
            other.start();
            other.join();
            provider.pauseRenewals(held.resource(), Duration.ofSeconds(5));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (held.isValid() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(held.isValid()).isFalse();
            long lostDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (meters.find(ObservedLeases.LOST).timer() == null && System.nanoTime() < lostDeadline) {
                Thread.sleep(20);
            }
            provider.resumeRenewals();

            assertThat(meters.get(ObservedLeases.ACQUIRE).tag("outcome", "acquired").timer().count()).isEqualTo(1);
            assertThat(meters.get(ObservedLeases.ACQUIRE).tag("outcome", "not_obtained").timer().count()).isEqualTo(1);
            assertThat(meters.get(ObservedLeases.LOST).tag("reason", "expired").timer().count()).isEqualTo(1);
            assertThat(meters.get("fenceguard.lease.held").gauge()).isNotNull();
            assertThat(spans.stopped).extracting(Observation.Context::getName)
                    .contains(ObservedLeases.ACQUIRE, ObservedLeases.ACQUIRE, ObservedLeases.LOST);
            assertThat(spans.stopped).allSatisfy(c -> assertThat(c.getHighCardinalityKeyValue("resource")).isNull());
            assertThat(meters.getMeters()).filteredOn(m -> m.getId().getName().startsWith("fenceguard."))
                    .allSatisfy(m -> assertThat(m.getId().getTags())
                            .allSatisfy(tag -> assertThat(tag.getValue()).doesNotContain("obs:")));
        });
    }

    @Test
    void theResourceNameGoesToSpansOnlyWhenEnabled() {
        runner.withPropertyValues("fenceguard.observation.include-resource=true")
                .run(context -> assertResourceOnSpansOnly(context));
    }

    /** Configurations written for the former prefix keep working; the key under the current one wins. */
    @Test
    void theFormerObservabilityKeysStillApply() {
        runner.withPropertyValues("fenceguard.observability.include-resource=true",
                "fenceguard.observability.recent-events=3").run(context -> {
            assertResourceOnSpansOnly(context);
            FenceguardObservationProperties current = context.getBean(FenceguardObservationProperties.class);
            assertThat(current.orFormer(context.getBean(FormerObservationProperties.class)).getRecentEvents())
                    .isEqualTo(3);
            for (int i = 0; i < 5; i++) {
                context.getBean(RefusalListener.class)
                        .refused(Refusal.builder(Refusal.Layer.MESSAGING, "stale").detail("#" + i).build());
            }
            assertThat(context.getBean(FenceguardActivity.class).recentRefusals()).hasSize(3);
        });
        runner.withPropertyValues("fenceguard.observability.include-resource=true",
                "fenceguard.observation.include-resource=false").run(context -> {
            context.getBean(LeaseManager.class).acquire("obs:" + UUID.randomUUID(), Duration.ofSeconds(2)).close();
            assertThat(context.getBean(Spans.class).stopped)
                    .filteredOn(c -> ObservedLeases.ACQUIRE.equals(c.getName()))
                    .singleElement().satisfies(c -> assertThat(c.getHighCardinalityKeyValue("resource")).isNull());
        });
    }

    private static void assertResourceOnSpansOnly(org.springframework.context.ApplicationContext context) {
        String resource = "obs:" + UUID.randomUUID();
        context.getBean(LeaseManager.class).acquire(resource, Duration.ofSeconds(2)).close();
        Spans spans = context.getBean(Spans.class);
        assertThat(spans.stopped).filteredOn(c -> ObservedLeases.ACQUIRE.equals(c.getName()))
                .singleElement().satisfies(c -> assertThat(c.getHighCardinalityKeyValue("resource").getValue())
                        .isEqualTo(resource));
        assertThat(context.getBean(MeterRegistry.class).getMeters())
                .allSatisfy(m -> assertThat(m.getId().getTags())
                        .allSatisfy(tag -> assertThat(tag.getValue()).doesNotContain("obs:")));
    }

    @Test
    void refusedMessagesAreObservedByLayerAndReasonAndListedByTheEndpoint() {
        runner.run(context -> {
            MessageAdmission admission = MessageAdmission.of(InMemoryHighWaterStore.create(),
                    context.getBean(RefusalListener.class));
            admission.admit("v1;r=account:9;t=20", "kafka:orders-0@1");
            assertThatThrownBy(() -> admission.admit("v1;r=account:9;t=19", "kafka:orders-0@2"))
                    .isInstanceOf(MessageRefusedException.class);
            assertThatThrownBy(() -> admission.admit(null, "kafka:orders-0@3")).isInstanceOf(MessageRefusedException.class);

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get(ObservedRefusals.REFUSED).tags("layer", "messaging", "reason", "stale").timer().count())
                    .isEqualTo(1);
            assertThat(meters.get(ObservedRefusals.REFUSED).tags("layer", "messaging", "reason", "missing").timer().count())
                    .isEqualTo(1);
            List<FenceguardActivity.RecentRefusal> refusals = context.getBean(FenceguardActivity.class).recentRefusals();
            assertThat(refusals).hasSize(2);
            assertThat(refusals.get(1)).satisfies(r -> {
                assertThat(r.layer()).isEqualTo("messaging");
                assertThat(r.resource()).isEqualTo("account:9");
                assertThat(r.token()).isEqualTo("19");
                assertThat(r.highWater()).isEqualTo("20");
            });
        });
    }

    @Test
    void statementsRefusedByTheJdbcGuardAreObservedWithTheirReason() throws Exception {
        try (io.fenceguard.spring.boot.autoconfigure.jdbc.ScratchDatabase database =
                io.fenceguard.spring.boot.autoconfigure.jdbc.ScratchDatabase.of("h2")) {
            runner.withConfiguration(AutoConfigurations.of(
                            io.fenceguard.spring.boot.autoconfigure.jdbc.FenceguardJdbcAutoConfiguration.class))
                    .withBean(javax.sql.DataSource.class, database::physical)
                    .withPropertyValues("fenceguard.jdbc.tables=accounts", "fenceguard.jdbc.verify-catalog=false")
                    .run(context -> {
                        io.fenceguard.db.FenceguardMigrations.migrate(database.physical());
                        try (java.sql.Connection raw = database.physical().getConnection();
                                java.sql.Statement ddl = raw.createStatement()) {
                            ddl.execute("CREATE TABLE accounts (id INT PRIMARY KEY, balance BIGINT, current_token BIGINT)");
                        }
                        javax.sql.DataSource dataSource = context.getBean(javax.sql.DataSource.class);
                        try (java.sql.Connection c = dataSource.getConnection();
                                java.sql.PreparedStatement update = c.prepareStatement(
                                        "UPDATE accounts SET balance = ? WHERE id = 1")) {
                            update.setLong(1, 5);
                            // No lease in context: a write to a fenced table is refused before it is sent.
                            assertThatThrownBy(update::executeUpdate)
                                    .isInstanceOfSatisfying(io.fenceguard.jdbc.FencingRefusedException.class, e ->
                                            assertThat(e.reason()).isEqualTo(
                                                    io.fenceguard.jdbc.FencingRefusedException.Reason.NO_LEASE));
                        }
                        assertThat(context.getBean(MeterRegistry.class).get(ObservedRefusals.REFUSED)
                                .tags("layer", "jdbc", "reason", "no_lease").timer().count()).isEqualTo(1);
                        assertThat(context.getBean(FenceguardActivity.class).recentRefusals()).singleElement()
                                .satisfies(r -> {
                                    assertThat(r.layer()).isEqualTo("jdbc");
                                    assertThat(r.detail()).contains("accounts");
                                });
                    });
        }
    }

    @Test
    void httpRefusalsAreObservedWithTheProblemTypeAsReason() {
        runner.run(context -> {
            RefusalListener listener = context.getBean(RefusalListener.class);
            listener.refused(io.fenceguard.admission.Problem.notAdmitted().refusal("PUT", "/accounts/1"));
            assertThat(context.getBean(MeterRegistry.class).get(ObservedRefusals.REFUSED)
                    .tags("layer", "http", "reason", "not-admitted").timer().count()).isEqualTo(1);
            assertThat(context.getBean(FenceguardActivity.class).recentRefusals()).singleElement()
                    .satisfies(r -> assertThat(r.layer()).isEqualTo("http"));
        });
    }

    @Test
    void theEndpointListsHeldLeasesAndReleasesOneHeldByThisInstance() {
        runner.run(context -> {
            FenceguardEndpoint endpoint = context.getBean(FenceguardEndpoint.class);
            LeaseManager manager = context.getBean(LeaseManager.class);
            String resource = "ops:" + UUID.randomUUID().toString().substring(0, 8);
            Lease lease = manager.acquire(resource, Duration.ofSeconds(2));

            @SuppressWarnings("unchecked")
            List<Map<String, Object>> leases = (List<Map<String, Object>>) endpoint.state().get("leases");
            assertThat(leases).singleElement().satisfies(l -> {
                assertThat(l.get("resource")).isEqualTo(resource);
                assertThat(l.get("token")).isEqualTo(String.valueOf(lease.token().value()));
                assertThat((Long) l.get("remainingMs")).isPositive().isLessThanOrEqualTo(600);
            });

            WebEndpointResponse<Map<String, Object>> released = endpoint.release(resource);
            assertThat(released.getStatus()).isEqualTo(200);
            assertThat(lease.isValid()).isFalse();
            assertThat(manager.tryAcquire(resource)).as("free for others at once").isPresent().get()
                    .satisfies(Lease::close);
            assertThat(endpoint.release(resource).getStatus()).isEqualTo(404);
            assertThatThrownBy(() -> endpoint.release("no spaces")).isInstanceOf(InvalidEndpointRequestException.class);
            assertThat(endpoint.state().get("leases")).asList().isEmpty();
        });
    }

    @Test
    void theEndpointIsThereOnlyWhenExposed() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=health")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FenceguardEndpoint.class)
                        .hasSingleBean(FenceguardActivity.class));
    }

    @Test
    void healthContributesTheHighWaterStoreAndIsDownWhileItCannotAnswer() {
        java.util.concurrent.atomic.AtomicBoolean broken = new java.util.concurrent.atomic.AtomicBoolean();
        // tokens from 1 up: a new store's floor is otherwise the clock (plus skew), above these small tokens
        io.fenceguard.admission.HighWaterStore redisMarks = io.fenceguard.redis.RedisHighWaterStore.of(RedissonScriptClient.of(TestRedisson.shared()),
                "fgobsv-hw-" + UUID.randomUUID().toString().substring(0, 6) + ":", io.fenceguard.admission.TokenBound.atMost(1));
        io.fenceguard.admission.HighWaterStore store = fence -> {
            if (broken.get()) {
                throw new IllegalStateException("store offline");
            }
            return redisMarks.admit(fence);
        };
        runner.withBean(io.fenceguard.admission.HighWaterStore.class, () -> store)
                .run(context -> {
                    io.fenceguard.spring.boot.autoconfigure.core.FenceguardHealthIndicator health =
                            context.getBean(io.fenceguard.spring.boot.autoconfigure.core.FenceguardHealthIndicator.class);
                    org.springframework.boot.health.contributor.Health up = health.health(true);
                    assertThat(up.getStatus()).isEqualTo(org.springframework.boot.health.contributor.Status.UP);
                    assertThat(up.getDetails()).containsKey("highWaterStore");
                    broken.set(true);
                    org.springframework.boot.health.contributor.Health down = health.health(true);
                    assertThat(down.getStatus()).isEqualTo(org.springframework.boot.health.contributor.Status.DOWN);
                    assertThat(down.getDetails().get("highWaterStore").toString()).contains("store offline");
                });
    }

    @Test
    void theEndpointShowsTheHighWaterMarksTheAutoConfiguredStoreAnswered() {
        // tokens from 1 up: a new store's floor is otherwise the clock (plus skew), above these small tokens
        io.fenceguard.admission.HighWaterStore redisMarks = io.fenceguard.redis.RedisHighWaterStore.of(RedissonScriptClient.of(TestRedisson.shared()),
                "fgobsv-hw-" + UUID.randomUUID().toString().substring(0, 6) + ":", io.fenceguard.admission.TokenBound.atMost(1));
        runner.withBean("highWaterStore", io.fenceguard.admission.HighWaterStore.class, () -> redisMarks).run(context -> {
            io.fenceguard.admission.HighWaterStore store = context.getBean("highWaterStore", io.fenceguard.admission.HighWaterStore.class);
            store.admit(Fence.of("account:7", "30"));
            store.admit(Fence.of("account:7", "29"));
            store.admit(Fence.of("account:8", "5"));
            @SuppressWarnings("unchecked")
            List<FenceguardActivity.HighWater> marks =
                    (List<FenceguardActivity.HighWater>) context.getBean(FenceguardEndpoint.class).state().get("highWaterMarks");
            assertThat(marks).extracting(FenceguardActivity.HighWater::resource, FenceguardActivity.HighWater::highWater,
                            FenceguardActivity.HighWater::lastOutcome)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("account:7", 30L, "stale"),
                            org.assertj.core.groups.Tuple.tuple("account:8", 5L, "claimed"));
        });
    }

    @Test
    void anApplicationsOwnFenceguardEndpointWins() {
        runner.withBean("fenceguardEndpoint", Object.class, Object::new)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FenceguardEndpoint.class));
    }

    @Test
    void withoutObservationsTheLeaseMetricsStayMeters() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                        FenceguardLeaseAutoConfiguration.class, FenceguardObservationAutoConfiguration.class))
                .withPropertyValues("fenceguard.lease.store=memory", "management.endpoints.web.exposure.include=fenceguard")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(ObservedLeases.class).hasSingleBean(FenceguardEndpoint.class);
                    context.getBean(LeaseManager.class).acquire("plain:1", Duration.ofSeconds(1)).close();
                    assertThat(context.getBean(MeterRegistry.class).get(ObservedLeases.ACQUIRE)
                            .tag("outcome", "acquired").timer().count()).isEqualTo(1);
                });
    }
}
