package io.fenceguard.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.test.contract.LeaseProviderContract;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The etcd provider passes the contract every provider passes, on a real three-member etcd cluster. */
class EtcdLeaseProviderContractTest extends LeaseProviderContract {

    private static Client client;

    @BeforeAll
    static void cluster() {
        client = EtcdCluster.sharedClient();
    }

    @Override
    protected LeaseProvider createProvider() {
        return EtcdLeaseProvider.of(client, EtcdCluster.CONFIG);
    }

    /** etcd counts lease time in whole seconds, and no less than 1.5 election timeouts (here 2 s). */
    @Override
    protected Duration shortLease() {
        return Duration.ofSeconds(2);
    }

    /**
     * The bug Jepsen found in etcd's own lock client: a waiter whose lease expired while it waited was told it
     * held the lock. Here the waiter's etcd lease is revoked while it waits; when the holder releases, the waiter
     * must fail, never be granted.
     */
    @Test
    void aWaiterWhoseLeaseEndedWhileItWaitedIsNeverGranted() throws Exception {
        ResourceName resource = freshResource("revoked-waiter");
        LeaseRequest holder = new LeaseRequest(resource, "holder", Duration.ofSeconds(10));
        Grant grant = provider().acquire(holder, Duration.ZERO);
        CompletableFuture<Grant> waiter = CompletableFuture.supplyAsync(() ->
                provider().acquire(new LeaseRequest(resource, "waiter", Duration.ofSeconds(10)), Duration.ofSeconds(20)));

        ByteSequence directory = ByteSequence.from(EtcdLeaseConfig.DEFAULT_KEY_PREFIX + resource.value() + "/",
                StandardCharsets.UTF_8);
        KeyValue waiting = null;
        for (int i = 0; i < 100 && waiting == null; i++) {
            List<KeyValue> keys = client.getKVClient().get(directory, GetOption.builder().isPrefix(true)
                    .withSortField(GetOption.SortTarget.CREATE).build()).get(5, TimeUnit.SECONDS).getKvs();
            if (keys.size() == 2) {
                waiting = keys.get(1);
            } else {
                Thread.sleep(50);
            }
        }
        assertThat(waiting).as("the waiter's key").isNotNull();
        client.getLeaseClient().revoke(waiting.getLease()).get(5, TimeUnit.SECONDS);

        assertThat(provider().release(holder, grant)).isTrue();
        assertThat(waiter).failsWithin(Duration.ofSeconds(15)).withThrowableOfType(Exception.class)
                .withRootCauseInstanceOf(LeaseUnavailableException.class);
    }
}
