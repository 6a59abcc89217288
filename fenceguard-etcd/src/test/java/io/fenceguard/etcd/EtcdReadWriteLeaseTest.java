package io.fenceguard.etcd;

import io.etcd.jetcd.Client;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.testsupport.contract.ReadWriteLeaseProviderContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Shared and exclusive leases on etcd pass the read-write contract, on a real three-member cluster. */
class EtcdReadWriteLeaseTest extends ReadWriteLeaseProviderContract {

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
}
