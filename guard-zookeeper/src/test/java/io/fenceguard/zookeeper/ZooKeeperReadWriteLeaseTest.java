package io.fenceguard.zookeeper;

import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.test.contract.ReadWriteLeaseProviderContract;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Shared and exclusive leases on ZooKeeper pass the read-write contract, on an in-JVM ZooKeeper. */
class ZooKeeperReadWriteLeaseTest extends ReadWriteLeaseProviderContract {

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
}
