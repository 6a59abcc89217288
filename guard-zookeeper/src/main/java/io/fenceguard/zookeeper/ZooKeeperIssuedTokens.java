package io.fenceguard.zookeeper;

import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.zookeeper.internal.NodeNames;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The highest token {@link ZooKeeperLeaseProvider} has minted for a resource, read after a {@code sync}, so the server
 * answering has applied every write the leader committed before the call (no lagging follower's view). A token is a
 * lease node's creation zxid, and the lock goes to the nodes in creation order: the holder is the first node now, and
 * every holder before it had a node created earlier, hence a smaller zxid. So the answer is the holder's creation zxid
 * (with shared holders first in the queue: the greatest of those before the first exclusive node). A shared holder
 * that released while an older shared one still holds had a greater zxid than the answer; shared leases do not write
 * through fences, so this does not matter to a mark. Empty when the resource has no lease node (nobody holds or waits):
 * ZooKeeper keeps nothing of it then, and no holder is refused; its next token is a later zxid. For
 * {@code MarkHealing} on the admission side; give it the Curator client and configuration of the provider.
 */
public final class ZooKeeperIssuedTokens implements IssuedTokens {

    private final CuratorFramework client;
    private final String basePath;
    private final long timeoutMillis;

    private ZooKeeperIssuedTokens(CuratorFramework client, String basePath, long timeoutMillis) {
        this.client = Objects.requireNonNull(client, "client");
        this.basePath = basePath;
        this.timeoutMillis = timeoutMillis;
    }

    /** The tokens minted by a {@link ZooKeeperLeaseProvider} on {@code client} with {@code config}. */
    public static ZooKeeperIssuedTokens of(CuratorFramework client, ZooKeeperLeaseConfig config) {
        int timeout = client.getZookeeperClient().getConnectionTimeoutMs();
        return new ZooKeeperIssuedTokens(client, config.basePath(), Math.max(1_000, timeout));
    }

    /** @throws IllegalStateException when ZooKeeper does not answer the sync or the reads */
    @Override
    public Optional<FencingToken> highestIssued(ResourceName resource) {
        String dir = ZKPaths.makePath(basePath, NodeNames.encode(resource));
        try {
            sync(dir);
            // A node that goes between the listing and its read was released: list again (a few times at most).
            for (int attempt = 0; attempt < 5; attempt++) {
                Optional<FencingToken> head = head(dir);
                if (head != null) {
                    return head;
                }
            }
            throw new IllegalStateException("the lease nodes of " + dir + " kept changing while read");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the lease nodes of " + dir, e);
        } catch (IllegalStateException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("ZooKeeper could not tell the lease nodes of " + dir + ": " + e, e);
        }
    }

    private void sync(String dir) throws Exception {
        CompletableFuture<Void> synced = new CompletableFuture<>();
        client.sync().inBackground((c, event) -> {
            KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
            if (code == KeeperException.Code.OK || code == KeeperException.Code.NONODE) {
                synced.complete(null);
            } else {
                synced.completeExceptionally(KeeperException.create(code, dir));
            }
        }).forPath(dir);
        synced.get(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** The holders' greatest creation zxid; empty without lease nodes; {@code null} when a node went meanwhile. */
    private Optional<FencingToken> head(String dir) throws Exception {
        List<String> children;
        try {
            children = client.getChildren().forPath(dir);
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        }
        List<String> queue = children.stream().filter(NodeNames::isLease).sorted(NodeNames.BY_SEQUENCE).toList();
        long highest = 0;
        for (int i = 0; i < queue.size(); i++) {
            String node = queue.get(i);
            if (i > 0 && !NodeNames.isRead(node)) {
                break; // an exclusive node waits for every node before it
            }
            Stat stat = client.checkExists().forPath(ZKPaths.makePath(dir, node));
            if (stat == null) {
                return null;
            }
            highest = Math.max(highest, stat.getCzxid());
            if (!NodeNames.isRead(node)) {
                break; // an exclusive holder: nobody else holds
            }
        }
        return highest == 0 ? Optional.empty() : Optional.of(FencingToken.of(highest));
    }

    @Override
    public String toString() {
        return "ZooKeeperIssuedTokens[" + basePath + "]";
    }
}
