package io.fenceguard.zookeeper;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.AbstractLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.core.spi.ReleaseRequestChannel;
import io.fenceguard.zookeeper.internal.HeldLease;
import io.fenceguard.zookeeper.internal.NodeNames;
import io.fenceguard.zookeeper.internal.PredecessorWait;
import io.fenceguard.zookeeper.internal.ZooKeeperReleaseRequests;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LeaseProvider} on ZooKeeper, through the application's Curator client (started by the
 * application and never closed here).
 *
 * <p><b>Acquire</b> creates an EPHEMERAL_SEQUENTIAL node {@code <basePath>/<resource>/lease-N} (in
 * Curator's protected mode, so a create whose answer was lost is found again, and whose data is the
 * holder id). The node with the lowest sequence number holds the lock; every other waiter watches only
 * the node just before its own, so a release wakes exactly one waiter and the lock goes in the order
 * of arrival. A waiter whose wait runs out, is interrupted or fails deletes its own node and removes its
 * watch: it leaves nothing behind. The resource name is encoded into one node name as
 * {@link NodeNames#encode described there} ({@code :} becomes {@code %3A}, {@code /} {@code %2F}, ...).
 *
 * <p><b>Token</b>: the node's creation zxid ({@link Stat#getCzxid()}). ZooKeeper orders every write of
 * the ensemble in one history, numbered by zxids that only grow: the low 32 bits count within a
 * leader's epoch, the high 32 bits are the epoch, which every newly elected leader raises. So a node
 * created later has a greater czxid, across restarts and leader changes, and no clock is involved. The
 * lock goes to nodes in creation order: a holder's node is the lowest, so every node created before it
 * is gone, and the next holder's node was either created after it (a greater sequence number, hence a
 * later write) or after its deletion (later still). Hence the tokens of one resource strictly increase,
 * even when its parent node was removed in between and the sequence numbers started again.
 *
 * <p><b>Shared leases</b> ({@link LeaseMode#SHARED}, read locks as in Curator's
 * {@code InterProcessReadWriteLock}) are {@code read-N} nodes in the same sequence: a shared node goes
 * once no exclusive node precedes it and watches only the nearest exclusive node before it; an exclusive
 * node waits for every node before it. Arrival order is kept for both. The token is again the czxid, so
 * an exclusive holder's token is greater than that of every lease (shared or not) created before it.
 *
 * <p><b>Lifetime</b>: the node lives as long as the client's session. When the session expires (the
 * process paused or was cut off for longer than the session timeout) ZooKeeper deletes the node and
 * {@link #watch} reports {@link LeaseLossReason#REVOKED} from Curator's {@code LOST} state;
 * {@code SUSPENDED} is not a loss yet, as the session may still be alive. A holder whose process is
 * alive but that stops renewing keeps it at most {@code leaseTime} past its last renewal: this provider
 * deletes the node then, so a lease left open does not block the resource for the session's lifetime.
 * {@link #renew} answers, without blocking, whether the holder's node still exists.
 */
public final class ZooKeeperLeaseProvider extends AbstractLeaseProvider {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLeaseProvider.class);

    private final CuratorFramework client;
    private final ZooKeeperLeaseConfig config;
    private final ConcurrentMap<HeldLease.Key, HeldLease> held = new ConcurrentHashMap<>();
    private final ScheduledExecutorService expiry;
    private final ZooKeeperReleaseRequests releaseRequests;
    private volatile boolean closed;

    private ZooKeeperLeaseProvider(CuratorFramework client, ZooKeeperLeaseConfig config) {
        this.client = client;
        this.config = config;
        this.expiry = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "fenceguard-zookeeper-expiry");
            thread.setDaemon(true);
            return thread;
        });
        this.releaseRequests = new ZooKeeperReleaseRequests(client, config.basePath(), expiry);
    }

    /** A provider with leases under {@value ZooKeeperLeaseConfig#DEFAULT_BASE_PATH}. */
    public static ZooKeeperLeaseProvider of(CuratorFramework client) {
        return of(client, ZooKeeperLeaseConfig.defaults());
    }

    /** A provider on the application's Curator client, which it neither starts nor closes. */
    public static ZooKeeperLeaseProvider of(CuratorFramework client, ZooKeeperLeaseConfig config) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(config, "config");
        if (client.getState() == CuratorFrameworkState.STOPPED) {
            throw new IllegalStateException("the Curator client is closed");
        }
        return new ZooKeeperLeaseProvider(client, config);
    }

    @Override
    protected Grant acquire(LeaseRequest request, Duration wait, long deadline) {
        ResourceName resource = request.resource();
        boolean shared = request.mode() == LeaseMode.SHARED;
        long sent = System.nanoTime();
        usable(resource);
        String dir = ZKPaths.makePath(config.basePath(), NodeNames.encode(resource));
        String path = null;
        PredecessorWait queue = null;
        boolean granted = false;
        try {
            Stat stat = new Stat();
            path = client.create().storingStatIn(stat).creatingParentContainersIfNeeded().withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath(ZKPaths.makePath(dir, shared ? NodeNames.READ_PREFIX : NodeNames.LEASE_PREFIX),
                            request.holder().getBytes(StandardCharsets.UTF_8));
            queue = new PredecessorWait(client, dir, path, shared);
            if (!queue.awaitFirst(deadline)) {
                throw new LeaseTimeoutException(resource, wait, (shared ? "an exclusive holder has it or is queued"
                        + " before this shared one" : "held by another holder") + " on " + describe());
            }
            if (stat.getCzxid() == 0) {
                // A create retried in protected mode reports no stat: read it.
                stat = client.checkExists().forPath(path);
                if (stat == null) {
                    throw new KeeperException.NoNodeException(path);
                }
            }
            FencingToken token = FencingToken.of(stat.getCzxid());
            HeldLease lease = new HeldLease(HeldLease.Key.of(request), path, token, sent + request.leaseTime().toNanos());
            held.put(lease.key(), lease);
            scheduleExpiry(lease);
            granted = true;
            return new Grant(token, sent);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while waiting for " + resource, resource, null, e);
        } catch (FenceguardException e) {
            throw e;
        } catch (Exception e) {
            throw new LeaseUnavailableException("ZooKeeper failed for " + resource + " on " + describe() + ": " + e,
                    resource, e);
        } finally {
            if (!granted && path != null) {
                removeWatch(queue);
                delete(path);
            }
        }
    }

    /** Both: shared leases are {@code read-} nodes that wait only for the exclusive nodes before them. */
    @Override
    public Set<LeaseMode> modes() {
        return Set.of(LeaseMode.EXCLUSIVE, LeaseMode.SHARED);
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        HeldLease lease = held.get(HeldLease.Key.of(request));
        if (lease == null || !lease.matches(grant)) {
            return CompletableFuture.completedFuture(false);
        }
        long sent = System.nanoTime();
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        try {
            client.checkExists().inBackground((c, event) -> {
                KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
                if (code == KeeperException.Code.OK && event.getStat() != null) {
                    answer.complete(lease.extend(sent + request.leaseTime().toNanos()));
                } else if (code == KeeperException.Code.OK || code == KeeperException.Code.NONODE) {
                    forget(lease);
                    answer.complete(false);
                } else {
                    answer.completeExceptionally(KeeperException.create(code, lease.path()));
                }
            }).forPath(lease.path());
        } catch (Exception e) {
            answer.completeExceptionally(e);
        }
        return answer;
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        HeldLease lease = held.get(HeldLease.Key.of(request));
        // Only the holder's own node, named uniquely by protected mode, is ever deleted.
        if (lease == null || !lease.matches(grant) || !forget(lease)) {
            return false;
        }
        try {
            client.delete().guaranteed().forPath(lease.path());
            return true;
        } catch (KeeperException.NoNodeException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while releasing " + request.resource()
                    + " (the node is deleted in the background)", request.resource(), grant.token(), e);
        } catch (Exception e) {
            throw new LeaseUnavailableException("ZooKeeper failed releasing " + request.resource()
                    + " (the node is deleted in the background or with the session): " + e, request.resource(), e);
        }
    }

    /** Reports {@link LeaseLossReason#REVOKED} once when the session is lost; not on a mere suspension. */
    @Override
    public AutoCloseable watch(LeaseRequest request, Grant grant, Consumer<LeaseLossReason> lost) {
        AtomicBoolean reported = new AtomicBoolean();
        ConnectionStateListener listener = (c, state) -> {
            if (state == ConnectionState.LOST && reported.compareAndSet(false, true)) {
                HeldLease lease = held.get(HeldLease.Key.of(request));
                if (lease != null && lease.matches(grant)) {
                    forget(lease);
                }
                lost.accept(LeaseLossReason.REVOKED);
            }
        };
        client.getConnectionStateListenable().addListener(listener);
        return () -> client.getConnectionStateListenable().removeListener(listener);
    }

    /** Release requests go through ZooKeeper (nodes under a watched container): they reach holders in every process. */
    @Override
    public Optional<ReleaseRequestChannel> releaseRequests() {
        return Optional.of(releaseRequests);
    }

    @Override
    public String describe() {
        return "ZooKeeper " + client.getZookeeperClient().getCurrentConnectionString() + config.basePath();
    }

    /** Stops the lease timers and deletes the nodes still held: without renewals they would lapse anyway. */
    @Override
    public void close() {
        closed = true;
        expiry.shutdownNow();
        for (HeldLease lease : held.values()) {
            if (forget(lease)) {
                delete(lease.path());
            }
        }
    }

    private void usable(ResourceName resource) {
        if (closed) {
            throw new IllegalStateException("the provider is closed");
        }
        if (client.getState() != CuratorFrameworkState.STARTED) {
            throw new LeaseUnavailableException("the Curator client is " + client.getState() + ", not started", resource, null);
        }
    }

    /** Ends the lease here; true for the one caller that ended it. */
    private boolean forget(HeldLease lease) {
        held.remove(lease.key(), lease);
        return lease.end();
    }

    private void scheduleExpiry(HeldLease lease) {
        long left = lease.remainingNanos(System.nanoTime());
        if (left <= 0) {
            if (forget(lease)) {
                log.warn("Lease on {} was not renewed within its lease time; its node is deleted", lease.key().resource());
                delete(lease.path());
            }
            return;
        }
        if (!closed) {
            expiry.schedule(() -> scheduleExpiry(lease), left, TimeUnit.NANOSECONDS);
        }
    }

    private static void removeWatch(PredecessorWait queue) {
        try {
            queue.removeWatch();
        } catch (Exception e) {
            // It fires once, at the predecessor's deletion, and is dropped then: harmless if left.
            log.debug("Could not remove a waiter's watch: {}", e.toString());
        }
    }

    /** Deletes a node, retried in the background until done if the connection fails meanwhile. */
    private void delete(String path) {
        try {
            if (Thread.currentThread().isInterrupted()) {
                // A foreground call would fail at once on the interrupt: hand it to Curator's thread.
                client.delete().guaranteed().inBackground().forPath(path);
                return;
            }
            client.delete().guaranteed().forPath(path);
        } catch (KeeperException.NoNodeException gone) {
            // Already gone: nothing left behind.
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("Could not delete {} now; Curator retries it in the background: {}", path, e.toString());
        }
    }
}
