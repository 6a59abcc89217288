package io.fenceguard.spring.boot.autoconfigure.hazelcast;

import io.fenceguard.hazelcast.HazelcastIssuedTokens;
import io.fenceguard.core.ResourceName;
import io.fenceguard.admission.IssuedTokens;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.NoLeaseStoreException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.hazelcast.HazelcastLeaseProvider;
import io.fenceguard.test.support.HazelcastCpCluster;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code fenceguard.lease.store=hazelcast}: leases on a real CP group of three members, through the application's instance. */
class FenceguardHazelcastAutoConfigurationTest {

    private static HazelcastCpCluster cluster;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardHazelcastAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class));

    @BeforeAll
    static void startMembers() throws Exception {
        cluster = HazelcastCpCluster.start(0);
    }

    @AfterAll
    static void stopMembers() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** The application's instance; it shuts it down itself, so the context must not. */
    private ApplicationContextRunner withInstance() {
        return runner.withBean(HazelcastInstance.class, () -> cluster.member(0),
                definition -> definition.setDestroyMethodName(""));
    }

    @Test
    void onTheApplicationsInstanceWhichKeepsRunning() {
        withInstance().withPropertyValues("fenceguard.lease.store=hazelcast", "fenceguard.lease.lease-time=5s",
                        "fenceguard.hazelcast.lock-name-prefix=boot-test:", "fenceguard.hazelcast.call-timeout=3s")
                .run(context -> {
                    assertThat(context).hasSingleBean(HazelcastLeaseProvider.class)
                            .hasSingleBean(HazelcastIssuedTokens.class);
                    HazelcastLeaseProvider provider = context.getBean(HazelcastLeaseProvider.class);
                    assertThat(provider.config().lockNamePrefix()).isEqualTo("boot-test:");
                    assertThat(provider.config().cpGroup()).isEqualTo("default");
                    assertThat(provider.config().callTimeout()).isEqualTo(Duration.ofSeconds(3));
                    LeaseManager manager = context.getBean(LeaseManager.class);
                    long first;
                    try (Lease lease = manager.acquire("boot:hazelcast", Duration.ofSeconds(5))) {
                        first = lease.token().value();
                        try (LeaseManager other = LeaseManager.of(HazelcastLeaseProvider.of(cluster.member(1),
                                provider.config()))) {
                            assertThat(other.tryAcquire("boot:hazelcast")).as("held on another member").isEmpty();
                        }
                    }
                    try (Lease lease = manager.acquire("boot:hazelcast", Duration.ofSeconds(5))) {
                        assertThat(lease.token().value()).isGreaterThan(first);
                        // the same lock names as the provider: the holder's own fence
                        assertThat(context.getBean(IssuedTokens.class).highestIssued(ResourceName.of("boot:hazelcast")))
                                .contains(lease.token());
                    }
                });
        assertThat(cluster.member(0).getLifecycleService().isRunning()).isTrue();
    }

    @Test
    void theApplicationsOwnLeaseProviderWins() {
        withInstance().withPropertyValues("fenceguard.lease.store=hazelcast")
                .withBean(LeaseProvider.class, InMemoryLeaseProvider::create)
                .run(context -> assertThat(context).doesNotHaveBean(HazelcastLeaseProvider.class)
                        .hasSingleBean(LeaseProvider.class).doesNotHaveBean(IssuedTokens.class));
    }

    @Test
    void withoutAnInstanceStartupFailsSayingWhatToAdd() {
        runner.withPropertyValues("fenceguard.lease.store=hazelcast").run(context -> assertThat(context).hasFailed()
                .getFailure().hasRootCauseInstanceOf(NoLeaseStoreException.class)
                .rootCause().hasMessageContaining("HazelcastInstance").hasMessageContaining("fenceguard-hazelcast"));
    }

    @Test
    void anInvalidCpGroupFailsStartupNamingTheProperty() {
        withInstance().withPropertyValues("fenceguard.lease.store=hazelcast", "fenceguard.hazelcast.cp-group=a@b")
                .run(context -> assertThat(context).hasFailed()
                        .getFailure().hasStackTraceContaining("invalid fenceguard.hazelcast.* properties"));
    }

    @Test
    void hazelcastIsOnlyTakenWhenAskedFor() {
        withInstance().withPropertyValues("fenceguard.lease.store=memory")
                .run(context -> assertThat(context).doesNotHaveBean(HazelcastLeaseProvider.class));
    }
}
