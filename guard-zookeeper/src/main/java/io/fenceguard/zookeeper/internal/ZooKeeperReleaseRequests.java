package io.fenceguard.zookeeper.internal;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.ReleaseRequestChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release requests between processes through ZooKeeper. Each request is a sequential node holding its reason under
 * the resource's request container, {@code <basePath>/<resource>.release-requests} (a sibling of the resource's
 * lease node: encoded resource names hold no '.', so it is never another resource's). A holder listening for
 * requests keeps a persistent recursive watch on that container and reads each new node, so each request is told
 * with its own reason. The sender deletes its node after a minute; the container goes when it is empty.
 */
public final class ZooKeeperReleaseRequests implements ReleaseRequestChannel {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperReleaseRequests.class);
    /** How long a request node is kept: listeners hear of it by the watch at once. */
    private static final long REQUEST_TTL_SECONDS = 60;

    private final CuratorFramework client;
    private final String basePath;
    private final ScheduledExecutorService cleanup;

    /** @param cleanup deletes the request nodes after their time (the provider's timer) */
    public ZooKeeperReleaseRequests(CuratorFramework client, String basePath, ScheduledExecutorService cleanup) {
        this.client = client;
        this.basePath = basePath;
        this.cleanup = cleanup;
    }

    private String requests(ResourceName resource) {
        return ZKPaths.makePath(basePath, NodeNames.encode(resource) + ".release-requests");
    }

    /** Answers whether a lease node of {@code resource} exists, then leaves the request. */
    @Override
    public boolean send(ResourceName resource, String reason) {
        try {
            boolean held;
            try {
                List<String> children = client.getChildren().forPath(ZKPaths.makePath(basePath, NodeNames.encode(resource)));
                held = children.stream().anyMatch(NodeNames::isLease);
            } catch (KeeperException.NoNodeException none) {
                held = false;
            }
            String path = client.create().creatingParentContainersIfNeeded().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath(ZKPaths.makePath(requests(resource), "request-"), reason.getBytes(StandardCharsets.UTF_8));
            try {
                cleanup.schedule(() -> delete(path), REQUEST_TTL_SECONDS, TimeUnit.SECONDS);
            } catch (RejectedExecutionException closed) {
                delete(path);
            }
            return held;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while asking for the release of " + resource, resource, null, e);
        } catch (Exception e) {
            throw new LeaseUnavailableException("ZooKeeper failed asking for the release of " + resource + ": " + e,
                    resource, e);
        }
    }

    /** Returns once ZooKeeper set the watch, so that every request sent after this returns is heard. */
    @Override
    public AutoCloseable listen(ResourceName resource, Consumer<String> onRequest) {
        String container = requests(resource);
        Watcher watcher = (WatchedEvent event) -> {
            if (event.getType() == Watcher.Event.EventType.NodeCreated && event.getPath() != null
                    && event.getPath().startsWith(container + "/")) {
                read(resource, event.getPath(), onRequest);
            }
        };
        try {
            client.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE).usingWatcher(watcher).forPath(container);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while listening for release requests of " + resource, resource,
                    null, e);
        } catch (Exception e) {
            throw new LeaseUnavailableException("ZooKeeper failed setting the watch of release requests of " + resource
                    + ": " + e, resource, e);
        }
        return () -> client.watchers().remove(watcher).ofType(Watcher.WatcherType.Any).quietly().inBackground()
                .forPath(container);
    }

    /** Reads a request node in the background, so that ZooKeeper's event thread never waits, and tells its reason. */
    private void read(ResourceName resource, String path, Consumer<String> onRequest) {
        try {
            client.getData().inBackground((c, event) -> {
                if (event.getResultCode() == KeeperException.Code.OK.intValue() && event.getData() != null) {
                    try {
                        onRequest.accept(new String(event.getData(), StandardCharsets.UTF_8));
                    } catch (RuntimeException e) {
                        log.warn("a release request listener of '{}' failed", resource, e);
                    }
                }
            }).forPath(path);
        } catch (Exception e) {
            log.warn("could not read the release request {} of '{}': {}", path, resource, e.toString());
        }
    }

    private void delete(String path) {
        try {
            client.delete().quietly().inBackground().forPath(path);
        } catch (Exception e) {
            log.debug("could not delete the release request {}: {}", path, e.toString());
        }
    }
}
