package io.fenceguard.zookeeper.internal;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/**
 * Waits until a lease node is the lowest of its resource. Each waiter watches only the node just before
 * its own, so a release wakes one waiter, not all of them (no herd), and the lock goes in the order the
 * nodes were created (fair).
 *
 * <p>A shared (read) node waits only for the exclusive nodes before it, as in Curator's
 * {@code InterProcessReadWriteLock}: it goes once no exclusive node precedes it, and meanwhile watches
 * only the nearest exclusive node before it. An exclusive node waits for every node before it, shared
 * or not.
 */
public final class PredecessorWait {

    private final CuratorFramework client;
    private final String dir;
    private final String own;
    private final boolean shared;
    private Watcher pending;
    private String pendingPath;
    private CountDownLatch pendingFired;

    /** Call {@link #removeWatch()} when done, so that a waiter that gave up leaves no watch behind. */
    public PredecessorWait(CuratorFramework client, String dir, String ownPath) {
        this(client, dir, ownPath, false);
    }

    /** For a shared node when {@code shared}: it waits only for the exclusive nodes before it. */
    public PredecessorWait(CuratorFramework client, String dir, String ownPath, boolean shared) {
        this.client = client;
        this.dir = dir;
        this.own = ZKPaths.getNodeFromPath(ownPath);
        this.shared = shared;
    }

    /** The node this one waits for: the one just before it, or for a shared node the nearest exclusive one; -1 for none. */
    private int blocker(List<String> leases, int at) {
        if (!shared) {
            return at - 1;
        }
        for (int i = at - 1; i >= 0; i--) {
            if (!NodeNames.isRead(leases.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @return true once the node is the lowest, false when the deadline ({@link System#nanoTime()}) came first
     * @throws KeeperException.NoNodeException when the node itself is gone (its session expired meanwhile)
     */
    public boolean awaitFirst(long deadlineNanos) throws Exception {
        while (true) {
            List<String> leases = client.getChildren().forPath(dir).stream()
                    .filter(NodeNames::isLease).sorted(NodeNames.BY_SEQUENCE).toList();
            int at = leases.indexOf(own);
            if (at < 0) {
                throw new KeeperException.NoNodeException(ZKPaths.makePath(dir, own));
            }
            int blocker = blocker(leases, at);
            if (blocker < 0) {
                return true;
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            CountDownLatch changed = new CountDownLatch(1);
            // Any event wakes the waiter: the predecessor gone, or a connection change worth a new look.
            Watcher watcher = event -> changed.countDown();
            pending = watcher;
            pendingPath = ZKPaths.makePath(dir, leases.get(blocker));
            pendingFired = changed;
            try {
                // getData, not exists: on a node already gone it throws and leaves no watch behind.
                client.getData().usingWatcher(watcher).forPath(pendingPath);
            } catch (KeeperException.NoNodeException gone) {
                pending = null;
                continue;
            }
            if (!changed.await(left, TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
    }

    /** Removes the watch on the predecessor if it is still set (it was not triggered: the wait gave up). */
    public void removeWatch() throws Exception {
        if (pending == null || pendingFired.getCount() == 0) {
            return;
        }
        if (shared) {
            // Several readers may watch the same exclusive node: remove only this one's watcher. A server
            // entry left behind fires once, at that node's deletion, and is dropped then.
            client.watches().remove(pending).ofType(Watcher.WatcherType.Data).quietly().inBackground().forPath(pendingPath);
            pending = null;
            return;
        }
        // Removing one watcher only drops it in this client (ZooKeeper's checkWatches); removing all of the
        // session's data watches on the path drops the server's entry too. It is the predecessor's node,
        // watched by no other waiter: each waiter watches a different node, and the successor turns to
        // it only after this waiter's node is deleted, which comes after this.
        var removal = client.watches().removeAll().ofType(Watcher.WatcherType.Data).quietly();
        if (Thread.currentThread().isInterrupted()) {
            // A foreground call would fail at once on the interrupt: hand it to Curator's thread.
            removal.inBackground().forPath(pendingPath);
        } else {
            removal.forPath(pendingPath);
        }
        pending = null;
    }
}
