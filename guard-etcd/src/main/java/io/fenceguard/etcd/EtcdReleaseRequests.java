package io.fenceguard.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.ReleaseRequestChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release requests between processes through etcd. A request is a put of its reason on the resource's request key,
 * {@code <keyPrefix without its last '/'>.release-requests/<resource>}: beside the lock keys, never inside a
 * resource's queue. The key lives on an etcd lease of a minute, so that requests leave nothing behind. A holder
 * listening for requests watches that key; the watch event carries the reason, so each request is told with its own.
 */
final class EtcdReleaseRequests implements ReleaseRequestChannel {

    private static final Logger log = LoggerFactory.getLogger(EtcdReleaseRequests.class);
    /** How long a request key lives: listeners hear of it by the watch at once. */
    private static final long REQUEST_TTL_SECONDS = 60;

    private final KV kv;
    private final Lease leases;
    private final Watch watches;
    private final EtcdLeaseConfig config;
    private final Function<ResourceName, String> directory;

    EtcdReleaseRequests(KV kv, Lease leases, Watch watches, EtcdLeaseConfig config,
                        Function<ResourceName, String> directory) {
        this.kv = kv;
        this.leases = leases;
        this.watches = watches;
        this.config = config;
        this.directory = directory;
    }

    private ByteSequence requestKey(ResourceName resource) {
        String prefix = config.keyPrefix().substring(0, config.keyPrefix().length() - 1);
        return bytes(prefix + ".release-requests/" + resource.value().replace("%", "%25").replace("/", "%2F"));
    }

    /** Puts the request and counts the resource's lock keys in one transaction: held when there is one. */
    @Override
    public boolean send(ResourceName resource, String reason) {
        long giveUpAt = System.nanoTime() + config.callTimeout().toNanos();
        long leaseId = call(resource, "release request lease", giveUpAt, () -> leases.grant(REQUEST_TTL_SECONDS)).getID();
        long holders = call(resource, "release request", giveUpAt, () -> kv.txn().Then(
                Op.put(requestKey(resource), bytes(reason), PutOption.builder().withLeaseId(leaseId).build()),
                Op.get(bytes(directory.apply(resource)), GetOption.builder().isPrefix(true).withCountOnly(true).build()))
                .commit()).getGetResponses().get(0).getCount();
        return holders > 0;
    }

    /** Waits for etcd to confirm the watch, so that every request sent after this returns is heard. */
    @Override
    public AutoCloseable listen(ResourceName resource, Consumer<String> onRequest) {
        CompletableFuture<Void> created = new CompletableFuture<>();
        Watch.Watcher watcher = watches.watch(requestKey(resource),
                WatchOption.builder().withNoDelete(true).withCreateNotify(true).build(),
                Watch.listener(response -> {
                    if (response.isCreatedNotify()) {
                        created.complete(null);
                    }
                    for (WatchEvent event : response.getEvents()) {
                        if (event.getEventType() == WatchEvent.EventType.PUT) {
                            try {
                                onRequest.accept(event.getKeyValue().getValue().toString(StandardCharsets.UTF_8));
                            } catch (RuntimeException e) {
                                log.warn("a release request listener of '{}' failed", resource, e);
                            }
                        }
                    }
                }, error -> {
                    created.completeExceptionally(error);
                    log.debug("Watch of release requests of {} ended: {}", resource, error.toString());
                }));
        try {
            call(resource, "release request watch", System.nanoTime() + config.callTimeout().toNanos(), () -> created);
        } catch (RuntimeException e) {
            watcher.close();
            throw e;
        }
        return watcher::close;
    }

    private <T> T call(ResourceName resource, String what, long giveUpAt, Supplier<CompletableFuture<T>> call) {
        CompletableFuture<T> answer = call.get();
        try {
            return answer.get(Math.max(0, giveUpAt - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted during etcd " + what + " for '" + resource + "'", resource, null, e);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new LeaseUnavailableException("etcd did not answer " + what + " for '" + resource + "' within "
                    + Duration.ofNanos(config.callTimeout().toNanos()).toMillis() + " ms", resource, e);
        } catch (ExecutionException e) {
            throw new LeaseUnavailableException("etcd failed " + what + " for '" + resource + "': " + e.getCause(),
                    resource, e.getCause());
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
