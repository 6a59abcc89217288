package io.fenceguard.etcd;

import io.etcd.jetcd.Client;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.test.contract.ReleaseRequestContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Release requests between two managers, each on a client and provider of its own, through a real etcd. */
class EtcdReleaseRequestTest extends ReleaseRequestContract {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(5)).build();

    private static EtcdCluster cluster;
    private static Client holderClient;
    private static Client askerClient;

    @BeforeAll
    static void startCluster() {
        cluster = EtcdCluster.start(1);
        holderClient = cluster.client();
        askerClient = cluster.client();
    }

    @AfterAll
    static void stopCluster() {
        if (holderClient != null) {
            holderClient.close();
        }
        if (askerClient != null) {
            askerClient.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected LeaseProvider holderProvider() {
        return EtcdLeaseProvider.of(holderClient, EtcdCluster.CONFIG);
    }

    @Override
    protected LeaseProvider askerProvider() {
        return EtcdLeaseProvider.of(askerClient, EtcdCluster.CONFIG);
    }

    @Override
    protected LeaseConfig leaseConfig() {
        return LEASE;
    }
}
