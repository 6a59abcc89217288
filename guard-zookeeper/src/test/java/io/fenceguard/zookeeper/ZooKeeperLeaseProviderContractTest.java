package io.fenceguard.zookeeper;

import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.test.contract.LeaseProviderContract;
import io.fenceguard.zookeeper.internal.NodeNames;
import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The ZooKeeper provider passes the contract every provider passes, on an in-JVM ZooKeeper. */
class ZooKeeperLeaseProviderContractTest extends LeaseProviderContract {

    private static TestingServer server;
    private static CuratorFramework client;

    @BeforeAll
    static void startServer() {
        server = ZooKeepers.server();
        client = ZooKeepers.client(server.getConnectString());
    }

    @AfterAll
    static void stopServer() {
        ZooKeepers.close(client);
        ZooKeepers.close(server);
    }

    @Override
    protected LeaseProvider createProvider() {
        return ZooKeeperLeaseProvider.of(client);
    }

    /** The holder's node vanishes as it does when its session expires: found by its data, the holder id. */
    @Override
    protected boolean forget(ResourceName resource, Lease lease) {
        String dir = ZKPaths.makePath(ZooKeeperLeaseConfig.DEFAULT_BASE_PATH, NodeNames.encode(resource));
        try {
            for (String child : client.getChildren().forPath(dir)) {
                String path = ZKPaths.makePath(dir, child);
                if (new String(client.getData().forPath(path), StandardCharsets.UTF_8).equals(lease.holder())) {
                    client.delete().forPath(path);
                    return true;
                }
            }
            return false;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
