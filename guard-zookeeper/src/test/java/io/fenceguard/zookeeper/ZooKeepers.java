package io.fenceguard.zookeeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;

/** The tests' in-JVM ZooKeeper and clients on it. */
final class ZooKeepers {

    static {
        // The watch tests read the server's watch table through the wchc command.
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
    }

    private ZooKeepers() {
    }

    static TestingServer server() {
        try {
            return new TestingServer(true);
        } catch (Exception e) {
            throw new IllegalStateException("could not start an in-JVM ZooKeeper", e);
        }
    }

    /** A started client; short timeouts so that the fault tests end quickly. */
    static CuratorFramework client(String connectString) {
        return client(connectString, 4_000);
    }

    static CuratorFramework client(String connectString, int sessionTimeoutMs) {
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(connectString)
                .sessionTimeoutMs(sessionTimeoutMs).connectionTimeoutMs(4_000).retryPolicy(new RetryNTimes(3, 100)).build();
        client.start();
        try {
            if (!client.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("no connection to " + connectString);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return client;
    }

    static void close(AutoCloseable closeable) {
        try {
            if (closeable != null) {
                closeable.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
