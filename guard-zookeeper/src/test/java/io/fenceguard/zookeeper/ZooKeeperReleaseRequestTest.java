package io.fenceguard.zookeeper;

import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.test.contract.ReleaseRequestContract;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Release requests between two managers, each on a Curator client and provider of its own as in two processes. */
class ZooKeeperReleaseRequestTest extends ReleaseRequestContract {

    private static final LeaseConfig LEASE = LeaseConfig.builder().leaseTime(Duration.ofSeconds(10)).build();

    private static TestingServer server;
    private static CuratorFramework holderClient;
    private static CuratorFramework askerClient;

    @BeforeAll
    static void startServer() {
        server = ZooKeepers.server();
        holderClient = ZooKeepers.client(server.getConnectString());
        askerClient = ZooKeepers.client(server.getConnectString());
    }

    @AfterAll
    static void stopServer() {
        ZooKeepers.close(holderClient);
        ZooKeepers.close(askerClient);
        ZooKeepers.close(server);
    }

    @Override
    protected LeaseProvider holderProvider() {
        return ZooKeeperLeaseProvider.of(holderClient);
    }

    @Override
    protected LeaseProvider askerProvider() {
        return ZooKeeperLeaseProvider.of(askerClient);
    }

    @Override
    protected LeaseConfig leaseConfig() {
        return LEASE;
    }

    /** Each request is a node of its own that the holder reads when its watch fires: the order is not promised. */
    @Override
    protected boolean tellsInOrder() {
        return false;
    }
}
