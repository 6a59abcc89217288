package io.fenceguard.etcd;

import io.etcd.jetcd.Client;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.testsupport.contract.LeaseProviderContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The etcd provider passes the contract every provider passes, on a real three-member etcd cluster. */
class EtcdLeaseProviderContractTest extends LeaseProviderContract {

    private static EtcdCluster cluster;
    private static Client client;

    @BeforeAll
    static void startCluster() {
        cluster = EtcdCluster.start(3);
        client = cluster.client();
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
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
}
