package io.fenceguard.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.zookeeper.internal.NodeNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the ZooKeeper provider does beyond the contract: fairness, no herd, session loss, clean-up. */
class ZooKeeperLeaseProviderTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private static TestingServer server;
    private final List<CuratorFramework> clients = new ArrayList<>();
    private final List<ZooKeeperLeaseProvider> providers = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeAll
    static void startServer() {
        server = ZooKeepers.server();
    }

    @AfterAll
    static void stopServer() {
        ZooKeepers.close(server);
    }

    @AfterEach
    void closeAll() {
        pool.shutdownNow();
        providers.forEach(ZooKeeperLeaseProvider::close);
        clients.forEach(ZooKeepers::close);
    }

    /** A provider on a client of its own, so with a session of its own. */
    private ZooKeeperLeaseProvider provider() {
        CuratorFramework client = ZooKeepers.client(server.getConnectString());
        clients.add(client);
        ZooKeeperLeaseProvider provider = ZooKeeperLeaseProvider.of(client);
        providers.add(provider);
        return provider;
    }

    private static ResourceName fresh(String what) {
        return ResourceName.of("zk:" + what + "/" + UUID.randomUUID() + "@x#1");
    }

    private static String dir(ResourceName resource) {
        return ZKPaths.makePath(ZooKeeperLeaseConfig.DEFAULT_BASE_PATH, NodeNames.encode(resource));
    }

    private List<String> leaseNodes(ResourceName resource) throws Exception {
        CuratorFramework client = clients.isEmpty() ? null : clients.get(0);
        if (client == null || client.checkExists().forPath(dir(resource)) == null) {
            return List.of();
        }
        return client.getChildren().forPath(dir(resource)).stream().sorted(NodeNames.BY_SEQUENCE).toList();
    }

    private void awaitNodes(ResourceName resource, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (leaseNodes(resource).size() != count) {
            assertThat(System.nanoTime()).as("%d nodes on %s", count, resource).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    @Test
    void aResourceNameBecomesOneNodeName() throws Exception {
        ResourceName resource = ResourceName.of("orders:42/lines@eu#1.v2");
        assertThat(NodeNames.encode(resource)).isEqualTo("orders%3A42%2Flines%40eu%231%2Ev2");
        assertThat(NodeNames.encode(ResourceName.of("a.b"))).isNotEqualTo(NodeNames.encode(ResourceName.of("a_b")));
        ZooKeeperLeaseProvider provider = provider();
        LeaseRequest request = new LeaseRequest(resource, "h", LEASE);
        Grant grant = provider.acquire(request, Duration.ZERO);
        assertThat(clients.get(0).getChildren().forPath(ZooKeeperLeaseConfig.DEFAULT_BASE_PATH))
                .contains("orders%3A42%2Flines%40eu%231%2Ev2");
        assertThat(provider.release(request, grant)).isTrue();
    }

    @Test
    void waitersAreGrantedInTheOrderTheyArrived() throws Exception {
        ResourceName resource = fresh("fifo");
        ZooKeeperLeaseProvider provider = provider();
        LeaseRequest first = new LeaseRequest(resource, "holder", LEASE);
        Grant held = provider.acquire(first, Duration.ZERO);
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<Future<?>> waiters = new ArrayList<>();
        int count = 5;
        for (int i = 0; i < count; i++) {
            int index = i;
            waiters.add(pool.submit(() -> {
                LeaseRequest request = new LeaseRequest(resource, "waiter-" + index, LEASE);
                Grant grant = provider.acquire(request, Duration.ofSeconds(20));
                order.add(index);
                tokens.add(grant.token().value());
                provider.release(request, grant);
                return null;
            }));
            awaitNodes(resource, i + 2); // the next waiter arrives only after this one queued
        }
        provider.release(first, held);
        for (Future<?> waiter : waiters) {
            waiter.get(20, TimeUnit.SECONDS);
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        assertThat(tokens.get(0)).isGreaterThan(held.token().value());
    }

    @Test
    void sharedWaitersWatchOnlyTheNearestExclusiveNodeBeforeThem() throws Exception {
        ResourceName resource = fresh("rwherd");
        ZooKeeperLeaseProvider holder = provider();
        LeaseRequest first = new LeaseRequest(resource, "writer-0", LEASE);
        Grant held = holder.acquire(first, Duration.ZERO);
        // Arrivals: reader, reader, writer, reader. Which node each one watches:
        LeaseMode[] modes = {LeaseMode.SHARED, LeaseMode.SHARED, LeaseMode.EXCLUSIVE, LeaseMode.SHARED};
        int[] watches = {0, 0, 2, 3};
        List<Future<Grant>> waiters = new ArrayList<>();
        for (int i = 0; i < modes.length; i++) {
            ZooKeeperLeaseProvider provider = provider();
            LeaseRequest request = new LeaseRequest(resource, "waiter-" + i, LEASE, modes[i]);
            waiters.add(pool.submit(() -> provider.acquire(request, Duration.ofSeconds(20))));
            awaitNodes(resource, i + 2);
        }
        List<String> nodes = leaseNodes(resource);
        assertThat(nodes.stream().filter(NodeNames::isRead).count()).isEqualTo(3);
        String dir = dir(resource);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (int i = 0; i < modes.length; i++) {
            long session = clients.get(i + 1).getZookeeperClient().getZooKeeper().getSessionId();
            String watched = ZKPaths.makePath(dir, nodes.get(watches[i]));
            while (!WatchTable.watchedBelow(server, session, dir).equals(java.util.Set.of(watched))
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(WatchTable.watchedBelow(server, session, dir)).as("waiter %d", i).containsExactly(watched);
        }
        holder.release(first, held);
        // Both readers go together; the writer behind them and the reader behind the writer still wait.
        Grant r0 = waiters.get(0).get(10, TimeUnit.SECONDS);
        Grant r1 = waiters.get(1).get(10, TimeUnit.SECONDS);
        Thread.sleep(200);
        assertThat(waiters.get(2).isDone()).isFalse();
        assertThat(waiters.get(3).isDone()).isFalse();
        assertThat(r0.token()).isGreaterThan(held.token());
        assertThat(r1.token()).isGreaterThan(r0.token());
    }

    @Test
    void eachWaiterWatchesOnlyItsPredecessor() throws Exception {
        ResourceName resource = fresh("herd");
        ZooKeeperLeaseProvider holder = provider();
        LeaseRequest first = new LeaseRequest(resource, "holder", LEASE);
        Grant held = holder.acquire(first, Duration.ZERO);
        int count = 4;
        List<Future<Grant>> waiters = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ZooKeeperLeaseProvider provider = provider();
            LeaseRequest request = new LeaseRequest(resource, "waiter-" + i, LEASE);
            waiters.add(pool.submit(() -> provider.acquire(request, Duration.ofSeconds(20))));
            awaitNodes(resource, i + 2);
        }
        List<String> nodes = leaseNodes(resource);
        String dir = dir(resource);
        // Let the last waiter register its watch after its node appeared.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (int i = 1; i <= count; i++) {
            long session = clients.get(i).getZookeeperClient().getZooKeeper().getSessionId();
            Stat stat = clients.get(0).checkExists().forPath(ZKPaths.makePath(dir, nodes.get(i)));
            assertThat(stat.getEphemeralOwner()).isEqualTo(session);
            String predecessor = ZKPaths.makePath(dir, nodes.get(i - 1));
            while (!WatchTable.watchedBelow(server, session, dir).equals(java.util.Set.of(predecessor))
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(WatchTable.watchedBelow(server, session, dir)).as("waiter %d", i).containsExactly(predecessor);
        }
        long holderSession = clients.get(0).getZookeeperClient().getZooKeeper().getSessionId();
        assertThat(WatchTable.watchedBelow(server, holderSession, dir)).isEmpty();
        holder.release(first, held);
        Grant next = waiters.get(0).get(10, TimeUnit.SECONDS);
        assertThat(next.token()).isGreaterThan(held.token());
        // The release woke the next waiter only: the others still wait.
        for (int i = 1; i < count; i++) {
            assertThat(waiters.get(i).isDone()).isFalse();
        }
    }

    @Test
    void aWaiterThatTimesOutLeavesNoNodeAndNoWatch() throws Exception {
        ResourceName resource = fresh("timeout");
        ZooKeeperLeaseProvider holder = provider();
        ZooKeeperLeaseProvider waiter = provider();
        LeaseRequest first = new LeaseRequest(resource, "holder", LEASE);
        Grant held = holder.acquire(first, Duration.ZERO);
        List<String> before = leaseNodes(resource);
        long start = System.nanoTime();
        assertThatThrownBy(() -> waiter.acquire(new LeaseRequest(resource, "waiter", LEASE), Duration.ofMillis(300)))
                .isInstanceOf(LeaseTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(300), Duration.ofSeconds(5));
        assertThat(leaseNodes(resource)).isEqualTo(before);
        long session = clients.get(1).getZookeeperClient().getZooKeeper().getSessionId();
        // The watch on the holder's node is removed in the background, right after the timeout.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!WatchTable.watchedBelow(server, session, dir(resource)).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(WatchTable.watchedBelow(server, session, dir(resource))).isEmpty();
        assertThat(holder.release(first, held)).isTrue();
        assertThat(leaseNodes(resource)).isEmpty();
    }

    @Test
    void anInterruptedWaiterStopsAtOnceAndLeavesNoNode() throws Exception {
        ResourceName resource = fresh("interrupt");
        ZooKeeperLeaseProvider holder = provider();
        ZooKeeperLeaseProvider waiter = provider();
        LeaseRequest first = new LeaseRequest(resource, "holder", LEASE);
        Grant held = holder.acquire(first, Duration.ZERO);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> flagKept = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                waiter.acquire(new LeaseRequest(resource, "waiter", LEASE), Duration.ofSeconds(30));
            } catch (Throwable t) {
                failure.set(t);
                flagKept.set(Thread.currentThread().isInterrupted());
            }
        });
        thread.start();
        awaitNodes(resource, 2);
        thread.interrupt();
        thread.join(5_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(failure.get()).isInstanceOf(FenceguardException.class).hasMessageContaining("interrupted");
        assertThat(flagKept.get()).isTrue();
        awaitNodes(resource, 1);
        assertThat(holder.release(first, held)).isTrue();
    }

    @Test
    void aClosedClientIsRefusedClearly() {
        CuratorFramework client = ZooKeepers.client(server.getConnectString());
        ZooKeeperLeaseProvider provider = ZooKeeperLeaseProvider.of(client);
        client.close();
        assertThatThrownBy(() -> provider.acquire(new LeaseRequest(fresh("closed"), "h", LEASE), Duration.ZERO))
                .isInstanceOf(LeaseUnavailableException.class).hasMessageContaining("STOPPED");
        assertThatThrownBy(() -> ZooKeeperLeaseProvider.of(client)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new ZooKeeperLeaseConfig("no-slash")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ZooKeeperLeaseConfig("/")).isInstanceOf(IllegalArgumentException.class);
        provider.close();
    }

    @Test
    void anExpiredSessionRevokesTheLeaseAndTheNextHolderGetsAGreaterToken() throws Exception {
        ResourceName resource = fresh("session");
        ZooKeeperLeaseProvider holderProvider = provider();
        ZooKeeperLeaseProvider nextProvider = provider();
        try (LeaseManager manager = LeaseManager.of(holderProvider, LeaseConfig.builder().leaseTime(LEASE).build())) {
            Lease lease = manager.acquire(resource, Duration.ZERO);
            CountDownLatch lost = new CountDownLatch(1);
            AtomicReference<LeaseLossReason> reason = new AtomicReference<>();
            lease.onLost((l, why) -> {
                reason.set(why);
                lost.countDown();
            });
            Future<Grant> next = pool.submit(() -> nextProvider.acquire(new LeaseRequest(resource, "next", LEASE),
                    Duration.ofSeconds(20)));
            awaitNodes(resource, 2);
            assertThat(next.isDone()).isFalse();

            expireSession(clients.get(0));

            assertThat(lost.await(15, TimeUnit.SECONDS)).isTrue();
            assertThat(reason.get()).isEqualTo(LeaseLossReason.REVOKED);
            assertThat(lease.isValid()).isFalse();
            assertThat(next.get(15, TimeUnit.SECONDS).token()).isGreaterThan(lease.token());
            lease.close();
        }
    }

    /** Ends a client's session on the server, as its expiry does: another handle on it closes it. */
    private static void expireSession(CuratorFramework client) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper killer = new ZooKeeper(server.getConnectString(), 4_000, event -> {
            if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, zk.getSessionId(), zk.getSessionPasswd());
        assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
        killer.close();
    }
}
