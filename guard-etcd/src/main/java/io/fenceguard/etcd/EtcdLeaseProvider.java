package io.fenceguard.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseMode;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.AbstractLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import io.fenceguard.core.spi.ReleaseRequestChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease provider on etcd, through the application's jetcd {@link Client} (never created or closed here).
 *
 * <p><b>Acquire</b> grants an etcd lease of the lease time (whole seconds, rounded up) and puts the key
 * {@code <prefix><resource>/<lease id>} on it. The keys of one resource are ordered by their create revision:
 * the first holds the lock; every other waiter watches only the key just before its own (a shared waiter: the
 * nearest exclusive key before it) and is woken by its deletion, so the lock goes in the order of arrival. While
 * it waits, a waiter keeps its own etcd lease alive. After every wait the waiter's own etcd lease is checked to be
 * alive, and its key to be still in the queue (etcd deletes a key with its lease): a waiter whose lease ended while
 * it waited (a paused process) is never told it holds the lock. Uncontended, an acquire is two round trips (the
 * lease grant; the key's put and the queue's read in one transaction), a release one (a compare-and-delete; the
 * lease is revoked without waiting).
 *
 * <p><b>Token</b>: the key's create revision. etcd numbers every change of the whole cluster in one history of
 * revisions that only grow, across leader changes and restarts, with no clock: a key created later has a
 * greater create revision. A holder's key is the first of its resource, so every key created before it is gone,
 * and the next holder's key was created after it; hence tokens of one resource strictly increase. etcd's own
 * documentation says its locks cannot be used for mutual exclusion by themselves, because a holder can pause past
 * its lease: the token, checked at the resource, is what makes the lock safe.
 *
 * <p><b>Lifetime</b>: {@code LeaseManager} renews by keeping the etcd lease alive ({@code LeaseKeepAlive}) and
 * checking that the key is still the holder's. When the lease expires or is revoked, etcd deletes the key, and
 * {@link #watch} reports {@link LeaseLossReason#REVOKED} at once. etcd's lease outlives the holder's view of it:
 * the holder counts its lease from when it sent the last keep-alive, etcd from when it received it, and etcd's
 * lease time is the lease time rounded up to whole seconds.
 */
public final class EtcdLeaseProvider extends AbstractLeaseProvider {

    private static final Logger log = LoggerFactory.getLogger(EtcdLeaseProvider.class);
    private static final String EXCLUSIVE = "W";
    /** What a shared key's value starts with (an exclusive key's with {@code W}); {@link EtcdIssuedTokens} reads it. */
    static final String SHARED = "R";

    private final EtcdLeaseConfig config;
    private final KV kv;
    private final Lease leases;
    private final Watch watches;
    private final EtcdReleaseRequests releaseRequests;
    private final ConcurrentMap<Key, Held> held = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private EtcdLeaseProvider(Client client, EtcdLeaseConfig config) {
        this.config = config;
        this.kv = client.getKVClient();
        this.leases = client.getLeaseClient();
        this.watches = client.getWatchClient();
        this.releaseRequests = new EtcdReleaseRequests(kv, leases, watches, config, resource -> directory(config, resource));
    }

    /** Leases under {@value EtcdLeaseConfig#DEFAULT_KEY_PREFIX}. */
    public static EtcdLeaseProvider of(Client client) {
        return of(client, EtcdLeaseConfig.defaults());
    }

    /** A provider on the application's jetcd client, which it neither starts nor closes. */
    public static EtcdLeaseProvider of(Client client, EtcdLeaseConfig config) {
        return new EtcdLeaseProvider(Objects.requireNonNull(client, "client"), Objects.requireNonNull(config, "config"));
    }

    public EtcdLeaseConfig config() {
        return config;
    }

    /** Both: a shared key waits only for the exclusive keys before it. */
    @Override
    public Set<LeaseMode> modes() {
        return Set.of(LeaseMode.EXCLUSIVE, LeaseMode.SHARED);
    }

    @Override
    protected Grant acquire(LeaseRequest request, Duration wait, long deadline) {
        if (closed) {
            throw new IllegalStateException("the provider is closed");
        }
        ResourceName resource = request.resource();
        boolean shared = request.mode() == LeaseMode.SHARED;
        long giveUpAt = deadline + config.callTimeout().toNanos();
        long ttl = ttlSeconds(request.leaseTime());
        long aliveFrom = System.nanoTime();
        long leaseId = call(resource, "lease grant", giveUpAt, () -> leases.grant(ttl)).getID();
        ByteSequence key = bytes(directory(config, resource) + Long.toHexString(leaseId));
        boolean granted = false;
        try {
            // The key and the queue in one round trip: a transaction without conditions runs both.
            GetOption queueOrder = GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                    .withSortOrder(GetOption.SortOrder.ASCEND).build();
            ByteSequence dir = bytes(directory(config, resource));
            GetResponse queue = call(resource, "put", giveUpAt, () -> kv.txn().Then(
                    Op.put(key, bytes((shared ? SHARED : EXCLUSIVE) + request.holder()),
                            PutOption.builder().withLeaseId(leaseId).build()),
                    Op.get(dir, queueOrder)).commit()).getGetResponses().get(0);
            while (true) {
                // The key is deleted with its lease: found in the queue, the lease was alive at that revision.
                KeyValue mine = find(queue.getKvs(), key);
                if (mine == null) {
                    throw new LeaseUnavailableException("the etcd lease of this waiter on '" + resource
                            + "' ended while it waited (its key is gone)", resource, null);
                }
                KeyValue blocker = blocker(queue.getKvs(), mine, shared);
                if (blocker == null) {
                    FencingToken token = FencingToken.of(mine.getCreateRevision());
                    held.put(Key.of(request), new Held(key, leaseId, token));
                    granted = true;
                    return new Grant(token, aliveFrom);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new LeaseTimeoutException(resource, wait, (shared ? "an exclusive holder has it or is queued"
                            + " before this shared one" : "held by another holder") + " on " + describe());
                }
                // Wake at the blocker's deletion, or in time to keep this waiter's own lease alive.
                long slice = Math.min(left, Math.max(TimeUnit.MILLISECONDS.toNanos(100),
                        TimeUnit.SECONDS.toNanos(ttl) / 3 - (System.nanoTime() - aliveFrom)));
                awaitDeletion(resource, blocker.getKey(), queue.getHeader().getRevision() + 1, slice);
                // After every wait: the waiter's own lease kept alive, or found ended (then never granted).
                long sent = System.nanoTime();
                if (!alive(resource, leaseId, giveUpAt)) {
                    throw new LeaseUnavailableException("the etcd lease of this waiter on '" + resource
                            + "' ended while it waited", resource, null);
                }
                aliveFrom = sent;
                queue = call(resource, "range", giveUpAt, () -> kv.get(dir, queueOrder));
            }
        } finally {
            if (!granted) {
                // Revoking the lease deletes the key with it: a waiter that gave up leaves nothing behind.
                revokeQuietly(leaseId);
            }
        }
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        Held lease = held.get(Key.of(request));
        if (lease == null || !lease.token().equals(grant.token())) {
            return CompletableFuture.completedFuture(false);
        }
        return leases.keepAliveOnce(lease.leaseId())
                .thenCompose(alive -> alive.getTTL() <= 0 ? CompletableFuture.completedFuture(false)
                        : kv.get(lease.key()).thenApply(now -> now.getKvs().size() == 1
                                && now.getKvs().get(0).getCreateRevision() == lease.token().value()))
                .exceptionally(error -> {
                    if (isLeaseGone(error)) {
                        return false;
                    }
                    throw error instanceof CompletionException c ? c : new CompletionException(error);
                })
                .thenApply(stillHeld -> {
                    if (!stillHeld) {
                        forget(request, lease);
                    }
                    return stillHeld;
                })
                .orTimeout(request.leaseTime().toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Deletes the key if it is still this holder's (compare-and-delete on its create revision), then the lease. */
    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        Key id = Key.of(request);
        Held lease = held.get(id);
        if (lease == null || !lease.token().equals(grant.token()) || !held.remove(id, lease)) {
            return false;
        }
        ResourceName resource = request.resource();
        try {
            return call(resource, "release", System.nanoTime() + config.callTimeout().toNanos(), () -> kv.txn()
                    .If(new Cmp(lease.key(), Cmp.Op.EQUAL, CmpTarget.createRevision(lease.token().value())))
                    .Then(Op.delete(lease.key(), DeleteOption.DEFAULT))
                    .commit()).isSucceeded();
        } finally {
            revokeQuietly(lease.leaseId());
        }
    }

    /** Reports {@link LeaseLossReason#REVOKED} once when the holder's key is deleted by anyone but its release. */
    @Override
    public AutoCloseable watch(LeaseRequest request, Grant grant, Consumer<LeaseLossReason> lost) {
        Key id = Key.of(request);
        Held lease = held.get(id);
        if (lease == null || !lease.token().equals(grant.token())) {
            return () -> { };
        }
        AtomicBoolean reported = new AtomicBoolean();
        Watch.Watcher watcher = watches.watch(lease.key(),
                WatchOption.builder().withRevision(grant.token().value()).withNoPut(true).build(),
                Watch.listener(response -> {
                    for (WatchEvent event : response.getEvents()) {
                        if (event.getEventType() == WatchEvent.EventType.DELETE && held.get(id) == lease
                                && reported.compareAndSet(false, true)) {
                            forget(request, lease);
                            lost.accept(LeaseLossReason.REVOKED);
                        }
                    }
                }, error -> log.debug("Watch of {} ended: {}", request.resource(), error.toString())));
        return watcher::close;
    }

    /** Release requests go through etcd (a put watched by the holders): they reach the holders in every process. */
    @Override
    public Optional<ReleaseRequestChannel> releaseRequests() {
        return Optional.of(releaseRequests);
    }

    @Override
    public String describe() {
        return "etcd " + config.keyPrefix();
    }

    /** Revokes the leases still held: without keep-alives they would lapse anyway. */
    @Override
    public void close() {
        closed = true;
        for (Held lease : held.values()) {
            revokeQuietly(lease.leaseId());
        }
        held.clear();
    }

    /** The prefix of a resource's keys; {@link EtcdIssuedTokens} reads the same. */
    static String directory(EtcdLeaseConfig config, ResourceName resource) {
        // '/' and '%' escaped, so that no resource's directory is a prefix of another's.
        return config.keyPrefix() + resource.value().replace("%", "%25").replace("/", "%2F") + "/";
    }

    private static long ttlSeconds(Duration leaseTime) {
        long millis = leaseTime.toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }

    private static KeyValue find(List<KeyValue> queue, ByteSequence key) {
        for (KeyValue kv : queue) {
            if (kv.getKey().equals(key)) {
                return kv;
            }
        }
        return null;
    }

    /** The key this one waits for: the one just before it, or for a shared key the nearest exclusive one before it. */
    private static KeyValue blocker(List<KeyValue> queue, KeyValue mine, boolean shared) {
        KeyValue before = null;
        for (KeyValue kv : queue) {
            if (kv.getCreateRevision() >= mine.getCreateRevision()) {
                break;
            }
            if (!shared || kv.getValue().toString(StandardCharsets.UTF_8).startsWith(EXCLUSIVE)) {
                before = kv;
            }
        }
        return before;
    }

    private boolean alive(ResourceName resource, long leaseId, long giveUpAt) {
        try {
            return call(resource, "lease keep-alive", giveUpAt, () -> leases.keepAliveOnce(leaseId)).getTTL() > 0;
        } catch (LeaseUnavailableException e) {
            if (isLeaseGone(e.getCause())) {
                return false;
            }
            throw e;
        }
    }

    /** Waits at most {@code nanos} for {@code key} to be deleted at or after {@code fromRevision}. */
    private void awaitDeletion(ResourceName resource, ByteSequence key, long fromRevision, long nanos) {
        CountDownLatch deleted = new CountDownLatch(1);
        Watch.Watcher watcher = watches.watch(key, WatchOption.builder().withRevision(fromRevision).withNoPut(true).build(),
                Watch.listener(response -> {
                    for (WatchEvent event : response.getEvents()) {
                        if (event.getEventType() == WatchEvent.EventType.DELETE) {
                            deleted.countDown();
                        }
                    }
                }, error -> deleted.countDown()));
        try {
            deleted.await(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while waiting for a lease on '" + resource + "'", resource, null, e);
        } finally {
            watcher.close();
        }
    }

    /** One call, answered by {@code giveUpAt} ({@link System#nanoTime()}) and at most the call timeout. */
    private <T> T call(ResourceName resource, String what, long giveUpAt, Supplier<CompletableFuture<T>> call) {
        long limit = Math.min(config.callTimeout().toNanos(), giveUpAt - System.nanoTime());
        CompletableFuture<T> answer = call.get();
        try {
            if (limit <= 0) {
                throw new TimeoutException();
            }
            return answer.get(limit, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted during etcd " + what + " for '" + resource + "'", resource, null, e);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw new LeaseUnavailableException("etcd did not answer " + what + " for '" + resource + "' in time ("
                    + describe() + ")", resource, e);
        } catch (ExecutionException e) {
            throw new LeaseUnavailableException("etcd failed " + what + " for '" + resource + "' (" + describe() + "): "
                    + e.getCause(), resource, e.getCause());
        }
    }

    private static boolean isLeaseGone(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof EtcdException e && e.getErrorCode() == ErrorCode.NOT_FOUND) {
                return true;
            }
            if (t.getMessage() != null && t.getMessage().contains("requested lease not found")) {
                return true;
            }
        }
        return false;
    }

    private void forget(LeaseRequest request, Held lease) {
        if (held.remove(Key.of(request), lease)) {
            revokeQuietly(lease.leaseId());
        }
    }

    private void revokeQuietly(long leaseId) {
        leases.revoke(leaseId).whenComplete((done, error) -> {
            if (error != null && !isLeaseGone(error)) {
                log.debug("Could not revoke etcd lease {}; it expires by itself: {}", Long.toHexString(leaseId), error.toString());
            }
        });
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /** One holder's lease on one resource. */
    private record Key(ResourceName resource, String holder) {
        static Key of(LeaseRequest request) {
            return new Key(request.resource(), request.holder());
        }
    }

    private record Held(ByteSequence key, long leaseId, FencingToken token) {
    }
}
