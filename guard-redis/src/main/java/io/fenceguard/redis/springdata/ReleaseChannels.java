package io.fenceguard.redis.springdata;

import io.fenceguard.redis.RedisScriptClient;
import io.fenceguard.redis.internal.ChannelListeners;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.SubscriptionListener;

/**
 * The release channels of one {@link SpringDataRedisScriptClient}: one subscribed connection of the factory, listeners
 * by channel, Redis's confirmations through Spring's {@link SubscriptionListener}. A thread of its own opens and
 * subscribes the connection, and with a blocking driver (Jedis) reads it until it fails, then opens another; with
 * Lettuce, whose pub/sub connection reconnects and subscribes again by itself, it only watches. Channels added or
 * left later are sent by a second thread, never the caller's: Lettuce's subscribe waits for Redis.
 */
final class ReleaseChannels implements MessageListener, SubscriptionListener {

    private static final Logger log = LoggerFactory.getLogger(ReleaseChannels.class);

    private final RedisConnectionFactory factory;
    private final String threadPrefix;
    /** Keeps the connection subscribed while no waiter is (a subscription needs a channel). */
    private final String idle = "fenceguard:springdata:" + UUID.randomUUID();
    private final ChannelListeners listeners = new ChannelListeners();
    private final ExecutorService requests;
    private RedisConnection connection;
    private boolean live;
    private Thread reader;
    private boolean closed;

    ReleaseChannels(RedisConnectionFactory factory, String threadPrefix) {
        this.factory = factory;
        this.threadPrefix = threadPrefix;
        ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> SpringDataRedisScriptClient.daemon(r, threadPrefix + "-channel-requests"));
        executor.allowCoreThreadTimeOut(true);
        this.requests = executor;
    }

    synchronized RedisScriptClient.Subscription add(String channel, Runnable onMessage) {
        if (closed) {
            throw new IllegalStateException("the Spring Data Redis lease client is closed");
        }
        CompletableFuture<Void> confirmed = listeners.add(channel, onMessage);
        if (reader == null) {
            reader = SpringDataRedisScriptClient.daemon(this::read, threadPrefix + "-channels");
            reader.start();
        } else if (live && !listeners.isSubscribed(channel)) {
            request(channel, true);
        }
        return ChannelListeners.subscription(confirmed, () -> remove(channel, onMessage));
    }

    private synchronized void remove(String channel, Runnable onMessage) {
        if (listeners.remove(channel, onMessage) && live && listeners.isSubscribed(channel)) {
            request(channel, false);
        }
    }

    /** Subscribes or leaves {@code channel} on the live connection, on the requests thread. */
    private void request(String channel, boolean subscribe) {
        RedisConnection on = connection;
        try {
            requests.execute(() -> {
                try {
                    Subscription subscription = on.getSubscription();
                    if (subscription == null || !subscription.isAlive()) {
                        return;  // the reader subscribes every channel with listeners on its next connection
                    }
                    byte[] name = channel.getBytes(StandardCharsets.UTF_8);
                    if (subscribe) {
                        if (listeners.hasListeners(channel)) {
                            subscription.subscribe(name);
                        }
                    } else if (leaving(channel)) {
                        subscription.unsubscribe(name);
                    }
                } catch (RuntimeException e) {
                    log.debug("release channel {} not {}: {}", channel, subscribe ? "subscribed" : "left", e.toString());
                    if (subscribe) {
                        listeners.notConfirmed(channel, e);
                    }
                }
            });
        } catch (RuntimeException closing) {
            // closed
        }
    }

    /**
     * Whether {@code channel} is to be left: no listener came back since it was asked. It counts as left from here on,
     * before Redis is told, so that a listener added meanwhile asks to subscribe again (sent after the leave, on the
     * same thread) instead of taking the channel for subscribed and missing every release on it.
     */
    private synchronized boolean leaving(String channel) {
        if (listeners.hasListeners(channel)) {
            return false;
        }
        listeners.left(channel);
        return true;
    }

    @Override
    public void onMessage(Message message, byte[] pattern) {
        listeners.deliver(new String(message.getChannel(), StandardCharsets.UTF_8));
    }

    @Override
    public void onChannelSubscribed(byte[] channel, long count) {
        listeners.confirmed(new String(channel, StandardCharsets.UTF_8));
        boolean first;
        synchronized (this) {
            first = !live && connection != null && !closed;
            live = true;
        }
        if (first) {
            // Channels added while the connection was being subscribed: asked for now, off the driver's thread.
            for (String missing : listeners.unsubscribed()) {
                request(missing, true);
            }
        }
    }

    @Override
    public void onChannelUnsubscribed(byte[] channel, long count) {
        listeners.left(new String(channel, StandardCharsets.UTF_8));
    }

    private void read() {
        long pauseMs = 50;
        while (true) {
            synchronized (this) {
                if (closed) {
                    return;
                }
            }
            RedisConnection opened;
            byte[][] names;
            // Opened outside the lock: a drained pool or a dead server may keep this thread, never a waiter.
            try {
                opened = factory.getConnection();
            } catch (RuntimeException e) {
                log.debug("release channel connection not opened; waiters wake when holders' time is up until it is: {}",
                        e.toString());
                opened = null;
            }
            synchronized (this) {
                if (closed) {
                    if (opened != null) {
                        closeQuietly(opened);
                    }
                    return;
                }
                connection = opened;
                live = false;
                List<String> all = listeners.channels();
                all.add(idle);
                names = new byte[all.size()][];
                for (int i = 0; i < names.length; i++) {
                    names[i] = all.get(i).getBytes(StandardCharsets.UTF_8);
                }
            }
            if (opened != null) {
                try {
                    opened.subscribe(this, names);  // blocking drivers: returns when the connection is gone
                    pauseMs = 50;
                    watch(opened);  // asynchronous drivers: returns when the subscription is gone
                } catch (RuntimeException e) {
                    log.debug("release channel connection failed; waiters wake when holders' time is up until it is "
                            + "back: {}", e.toString());
                } finally {
                    synchronized (this) {
                        connection = null;
                        live = false;
                        listeners.disconnected();
                    }
                    closeQuietly(opened);
                }
            }
            try {
                Thread.sleep(pauseMs);
            } catch (InterruptedException e) {
                return;
            }
            pauseMs = Math.min(1_000, pauseMs * 2);
        }
    }

    /** Waits while the subscription of an asynchronous driver lives (its driver keeps it across reconnects). */
    private void watch(RedisConnection on) {
        synchronized (this) {
            while (!closed && on.isSubscribed()) {
                try {
                    wait(1_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void closeQuietly(RedisConnection connection) {
        try {
            connection.close();
        } catch (RuntimeException e) {
            // broken already
        }
    }

    void close() {
        RedisConnection open;
        synchronized (this) {
            closed = true;
            open = connection;
            notifyAll();
        }
        if (open != null) {
            // Unsubscribing waits for Redis: done off the caller's thread; a blocking reader returns when it is.
            try {
                requests.execute(() -> {
                    Subscription subscription = open.getSubscription();
                    if (subscription != null) {
                        try {
                            subscription.close();
                        } catch (RuntimeException e) {
                            // gone with the connection
                        }
                    }
                });
            } catch (RuntimeException e) {
                // closed already
            }
        }
        requests.shutdown();
        Thread r;
        synchronized (this) {
            r = reader;
        }
        if (r != null && open == null) {
            r.interrupt();  // asleep between connections
        }
    }
}
