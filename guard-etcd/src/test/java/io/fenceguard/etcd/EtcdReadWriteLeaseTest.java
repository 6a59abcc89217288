package io.fenceguard.etcd;

import io.etcd.jetcd.Client;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.test.contract.ReadWriteLeaseProviderContract;
import org.junit.jupiter.api.BeforeAll;

/** Shared and exclusive leases on etcd pass the read-write contract, on a real three-member cluster. */
class EtcdReadWriteLeaseTest extends ReadWriteLeaseProviderContract {

    private static Client client;

    @BeforeAll
    static void cluster() {
        client = EtcdCluster.sharedClient();
    }

    @Override
    protected LeaseProvider createProvider() {
        return EtcdLeaseProvider.of(client, EtcdCluster.CONFIG);
    }
}
