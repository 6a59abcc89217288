package io.fenceguard.spring.boot.autoconfigure.redlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redlock.RedlockLeaseProvider;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code fenceguard.lease.store=redlock}: leases over three real masters through clients of the auto-configuration's
 * own ({@link RedlockMasters}, not API), shut down with the context.
 */
class FenceguardRedlockAutoConfigurationTest {

    private static List<RedisProcess> masters;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardRedlockAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class));

    @BeforeAll
    static void startMasters() {
        masters = List.of(RedisProcess.start(), RedisProcess.start(), RedisProcess.start());
    }

    @AfterAll
    static void stopMasters() {
        masters.forEach(RedisProcess::close);
    }

    @Test
    void redlockOverTheListedMastersWhoseClientsCloseWithTheContext() {
        AtomicReference<RedlockMasters> made = new AtomicReference<>();
        runner.withPropertyValues("fenceguard.lease.store=redlock",
                        "fenceguard.redlock.addresses=" + masters.get(0).uri() + "," + masters.get(1).uri() + ","
                                + masters.get(2).uri(),
                        "fenceguard.redlock.master-timeout=300ms", "fenceguard.redlock.key-prefix=fgboot:",
                        "fenceguard.redlock.connect-timeout=5s")
                .run(context -> {
                    RedlockLeaseProvider provider = context.getBean(RedlockLeaseProvider.class);
                    assertThat(provider.quorum()).isEqualTo(2);
                    assertThat(provider.config().masterTimeout()).isEqualTo(Duration.ofMillis(300));
                    long last = leasesWork(context.getBean(LeaseManager.class), "boot:redlock");
                    made.set(context.getBean(RedlockMasters.class));
                    for (RedisProcess m : masters) {
                        assertThat(String.valueOf(m.call("GET", "fgboot:{boot:redlock}:token"))).isEqualTo(Long.toString(last));
                    }
                });
        assertThat(made.get().clients()).allSatisfy(c -> assertThat(c.isShutdown()).isTrue());
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
}
