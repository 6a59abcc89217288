package io.fenceguard.redis.internal;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.ReleaseRequestChannel;
import io.fenceguard.redis.RedisScriptClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release requests between processes through Redis. A request is kept in a small hash next to the lock (a number
 * and the reason, for a minute) and announced on a channel of its own per resource; each process that holds a lease
 * with a listener subscribes once per resource and, on the announcement, reads the request and hands its reason to
 * its listeners. Pub/sub gives no payload through {@link RedisScriptClient#subscribe}, hence the hash: requests
 * sent close together may be read as one, with the latest reason.
 */
public final class RedisReleaseRequests implements ReleaseRequestChannel {

    private static final Logger log = LoggerFactory.getLogger(RedisReleaseRequests.class);

    /** KEYS: lock, request hash. ARGV: reason, channel, ttl ms. Answers whether the lock is held. */
    static final String SEND = """
            local n = redis.call('HINCRBY', KEYS[2], 'n', 1)
            redis.call('HSET', KEYS[2], 'r', ARGV[1])
            redis.call('PEXPIRE', KEYS[2], ARGV[3])
            redis.call('PUBLISH', ARGV[2], n)
            return redis.call('EXISTS', KEYS[1])
            """;
    /** KEYS: request hash. Answers {number, reason} of the latest request ({0, ''} when none is kept). */
    static final String READ = """
            local v = redis.call('HMGET', KEYS[1], 'n', 'r')
            return {v[1] or '0', v[2] or ''}
            """;
    /** How long a request is kept for its listeners to read: they read it as soon as it is announced. */
    private static final long REQUEST_TTL_MS = 60_000;

    private final RedisScriptClient client;
    private final String keyPrefix;
    private final RedisCalls calls;
    private final Duration callTimeout;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();

    public RedisReleaseRequests(RedisScriptClient client, String keyPrefix, RedisCalls calls, Duration callTimeout) {
        this.client = client;
        this.keyPrefix = keyPrefix;
        this.calls = calls;
        this.callTimeout = callTimeout;
    }

    /** The names of one resource's requests: the hash and the channel (same hash tag as the lock). */
    private record Names(String lock, String request, String channel) {
        static Names of(String prefix, ResourceName resource) {
            LeaseKeys keys = LeaseKeys.of(prefix, resource);
            String base = prefix + "{" + resource.value() + "}";
            return new Names(keys.lock(), base + ":release-request", base + ":release-requested");
        }
    }

    @Override
    public boolean send(ResourceName resource, String reason) {
        Names names = Names.of(keyPrefix, resource);
        long deadline = System.nanoTime() + callTimeout.toNanos();
        Object held = calls.call(resource, "ask for the release of", deadline, () -> client.eval(SEND,
                RedisScriptClient.Reply.LONG, List.of(names.lock(), names.request()),
                List.of(reason, names.channel(), Long.toString(REQUEST_TTL_MS)), deadline), null);
        return held != null && toLong(held) == 1L;
    }

    /** Waits for Redis to confirm the subscription, so that every request sent after this returns is heard. */
    @Override
    public AutoCloseable listen(ResourceName resource, Consumer<String> onRequest) {
        Names names = Names.of(keyPrefix, resource);
        Channel channel = channels.compute(names.channel(), (name, existing) -> {
            Channel c = existing != null ? existing : new Channel(resource, names);
            c.listeners.add(onRequest);
            return c;
        });
        AutoCloseable handle = () -> leave(names.channel(), channel, onRequest);
        try {
            channel.subscribed().toCompletableFuture().get(callTimeout.toNanos(), TimeUnit.NANOSECONDS);
            return handle;
        } catch (InterruptedException e) {
            leave(names.channel(), channel, onRequest);
            Thread.currentThread().interrupt();
            throw new FenceguardException("interrupted while subscribing to release requests of '" + resource + "'",
                    resource, null, e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            leave(names.channel(), channel, onRequest);
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw new LeaseUnavailableException("cannot listen for release requests of '" + resource + "': Redis did "
                    + "not confirm the subscription within " + callTimeout.toMillis() + " ms (" + cause + ")", resource, cause);
        }
    }

    private void leave(String name, Channel channel, Consumer<String> listener) {
        channels.compute(name, (key, current) -> {
            if (current != channel) {
                return current;
            }
            current.listeners.remove(listener);
            if (!current.listeners.isEmpty()) {
                return current;
            }
            current.stop();
            return null;
        });
    }

    /** One resource's requests in this process: one subscription, each request told once to every listener. */
    private final class Channel {
        private final ResourceName resource;
        private final Names names;
        private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
        private final AtomicLong lastTold = new AtomicLong();
        /** Guards the fields below: a lock, not a monitor, since a client may block on its socket inside. */
        private final ReentrantLock lock = new ReentrantLock();
        private RedisScriptClient.Subscription subscription;
        private CompletionStage<?> ready;
        private boolean stopped;

        Channel(ResourceName resource, Names names) {
            this.resource = resource;
            this.names = names;
        }

        /**
         * Reads the latest request kept (it is not for a lease that listens from now on) and then subscribes; the
         * stage completes once Redis confirmed the subscription. A failed start is tried again by the next listener.
         */
        CompletionStage<?> subscribed() {
            lock.lock();
            try {
                if (ready == null || ready.toCompletableFuture().isCompletedExceptionally()) {
                    cancel();
                    ready = read().thenCompose(request -> {
                        lastTold.accumulateAndGet(request.number(), Math::max);
                        return subscribe();
                    });
                }
                return ready;
            } finally {
                lock.unlock();
            }
        }

        private CompletionStage<?> subscribe() {
            lock.lock();
            try {
                if (stopped) {
                    return CompletableFuture.completedFuture(null);
                }
                subscription = client.subscribe(names.channel(), this::announced);
                return subscription.confirmed();
            } finally {
                lock.unlock();
            }
        }

        /** The last listener left: this channel is done (a later listener makes a new one). */
        void stop() {
            lock.lock();
            try {
                stopped = true;
                cancel();
            } finally {
                lock.unlock();
            }
        }

        /** With the lock held. */
        private void cancel() {
            ready = null;
            if (subscription != null) {
                subscription.cancel();
                subscription = null;
            }
        }

        /** On the client's thread: reads the request without blocking it, tells each listener on the answer. */
        private void announced() {
            read().whenComplete((request, error) -> {
                if (error != null) {
                    log.warn("could not read a release request of '{}' from Redis: {}", resource, error.toString());
                    return;
                }
                long told = lastTold.get();
                if (request.number() > told && lastTold.compareAndSet(told, request.number())) {
                    for (Consumer<String> listener : listeners) {
                        try {
                            listener.accept(request.reason());
                        } catch (RuntimeException e) {
                            log.warn("a release request listener of '{}' failed", resource, e);
                        }
                    }
                }
            });
        }

        private CompletionStage<Request> read() {
            return client.evalAsync(READ, RedisScriptClient.Reply.LIST, List.of(names.request()), List.of(),
                    callTimeout.toNanos()).thenApply(reply -> {
                        List<?> values = (List<?>) reply;
                        return new Request(toLong(values.get(0)), text(values.get(1)));
                    });
        }
    }

    private record Request(long number, String reason) {
    }

    private static long toLong(Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        return Long.parseLong(text(value));
    }

    private static String text(Object value) {
        return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
    }
}
