package io.fenceguard.spring.boot.autoconfigure.etcd;

import io.fenceguard.etcd.EtcdIssuedTokens;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.NoLeaseStoreException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.etcd.EtcdLeaseProvider;
import io.fenceguard.test.support.EtcdProcesses;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code fenceguard.lease.store=etcd}: leases on a real etcd, through the application's client or one of its own. */
class FenceguardEtcdAutoConfigurationTest {

    private static EtcdProcesses etcd;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceguardEtcdAutoConfiguration.class,
                    FenceguardLeaseAutoConfiguration.class))
            // the first call of a new client also connects: on a loaded machine that can exceed the 2 s default
            .withPropertyValues("fenceguard.etcd.call-timeout=10s");

    @BeforeAll
    static void startEtcd() {
        EtcdProcesses.assumeAvailable();
        etcd = EtcdProcesses.start(1);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    /** Two leases one after the other on the context's manager, the first excluding another manager. */
    private static void leasesWork(LeaseManager manager, String resource) {
        long first;
        try (Lease lease = manager.acquire(resource, Duration.ofSeconds(5))) {
            first = lease.token().value();
            try (LeaseManager other = LeaseManager.of(manager.provider())) {
                assertThat(other.tryAcquire(resource)).isEmpty();
            }
        }
        try (Lease lease = manager.acquire(resource, Duration.ofSeconds(5))) {
            assertThat(lease.token().value()).isGreaterThan(first);
        }
    }

    @Test
    void fromTheEndpointsWithAClientOfItsOwnClosedWithTheContext() {
        AtomicReference<Client> made = new AtomicReference<>();
        runner.withPropertyValues("fenceguard.lease.store=etcd", "fenceguard.etcd.endpoints=" + etcd.endpoints(),
                        "fenceguard.etcd.key-prefix=boot-test/leases/", "fenceguard.lease.lease-time=5s")
                .run(context -> {
                    assertThat(context).hasSingleBean(EtcdLeaseProvider.class).hasSingleBean(Client.class)
                            .hasSingleBean(EtcdIssuedTokens.class);
                    assertThat(context.getBean(EtcdLeaseProvider.class).config().keyPrefix()).isEqualTo("boot-test/leases/");
                    made.set(context.getBean(Client.class));
                    leasesWork(context.getBean(LeaseManager.class), "boot:etcd-own");
                });
        assertThatThrownBy(() -> made.get().getKVClient().get(bytes("boot-test/any")).get(5, TimeUnit.SECONDS))
                .as("the client made from the endpoints is closed with the context").isNotNull();
    }

    @Test
    void onTheApplicationsClientWhichStaysOpen() throws Exception {
        try (Client own = Client.builder().endpoints(etcd.endpoints()).build()) {
            // The application closes its client itself (here: the try block), so the context must not.
            runner.withBean(Client.class, () -> own, definition -> definition.setDestroyMethodName(""))
                    .withPropertyValues("fenceguard.lease.store=etcd", "fenceguard.lease.lease-time=5s")
                    .run(context -> {
                        assertThat(context).hasSingleBean(Client.class).hasSingleBean(EtcdIssuedTokens.class);
                        assertThat(context.getBean(EtcdLeaseProvider.class).config().keyPrefix())
                                .isEqualTo("fenceguard/leases/");
                        leasesWork(context.getBean(LeaseManager.class), "boot:etcd-app");
                    });
            assertThat(own.getKVClient().get(bytes("boot-test/any")).get(5, TimeUnit.SECONDS).getKvs()).isEmpty();
        }
    }

    @Test
    void withoutAClientOrEndpointsStartupFailsSayingWhatToAdd() {
        runner.withPropertyValues("fenceguard.lease.store=etcd").run(context -> assertThat(context).hasFailed()
                .getFailure().hasRootCauseInstanceOf(NoLeaseStoreException.class)
                .rootCause().hasMessageContaining("fenceguard.etcd.endpoints").hasMessageContaining("fenceguard-etcd"));
    }

    @Test
    void anInvalidKeyPrefixFailsStartupNamingTheProperty() {
        runner.withPropertyValues("fenceguard.lease.store=etcd", "fenceguard.etcd.endpoints=" + etcd.endpoints(),
                "fenceguard.etcd.key-prefix=no-slash").run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining("invalid fenceguard.etcd.* properties"));
    }

    @Test
    void etcdIsOnlyTakenWhenAskedFor() {
        runner.withPropertyValues("fenceguard.lease.store=memory", "fenceguard.etcd.endpoints=" + etcd.endpoints())
                .run(context -> assertThat(context).doesNotHaveBean(EtcdLeaseProvider.class)
                        .doesNotHaveBean(Client.class));
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
