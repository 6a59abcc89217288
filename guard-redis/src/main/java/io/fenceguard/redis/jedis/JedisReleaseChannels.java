package io.fenceguard.redis.jedis;

import io.fenceguard.redis.RedisScriptClient.Subscription;
import io.fenceguard.redis.internal.ChannelListeners;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.util.Pool;

/**
 * The release channels of a {@link JedisScriptClient}: one subscribed connection of the pool, read by a thread of
 * its own and reconnected after a failure, and the listeners by channel.
 */
final class JedisReleaseChannels implements Runnable {

    // The client's logger: one name to configure for everything the client does.
    private static final Logger log = LoggerFactory.getLogger(JedisScriptClient.class);

    private final Pool<Jedis> pool;
    /** Keeps the connection subscribed while no waiter is (Redis needs one channel to subscribe to). */
    private final String idle = "fenceguard:jedis:" + UUID.randomUUID();
    private final ChannelListeners listeners = new ChannelListeners();
    /**
     * Guards the fields below. A lock, not a monitor: a waiter's thread writes to the socket while holding it,
     * and a virtual thread blocked inside a monitor keeps its carrier (JDK 21 to 23).
     */
    private final ReentrantLock lock = new ReentrantLock();
    private JedisPubSub current;
    private Jedis connection;
    private Thread reader;
    private boolean closed;

    JedisReleaseChannels(Pool<Jedis> pool) {
        this.pool = pool;
    }

    Subscription add(String channel, Runnable onMessage) {
        CompletableFuture<Void> confirmed;
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the Jedis lease client is closed");
            }
            confirmed = listeners.add(channel, onMessage);
            if (reader == null) {
                reader = JedisScriptClient.daemon(this, "fenceguard-jedis-channels");
                reader.start();
            } else if (current != null && !listeners.isSubscribed(channel)) {
                try {
                    current.subscribe(channel);
                } catch (RuntimeException e) {
                    // the reader reconnects and subscribes every channel with listeners
                }
            }
        } finally {
            lock.unlock();
        }
        return ChannelListeners.subscription(confirmed, () -> remove(channel, onMessage));
    }

    private void remove(String channel, Runnable onMessage) {
        lock.lock();
        try {
            if (listeners.remove(channel, onMessage) && current != null && listeners.left(channel)) {
                try {
                    current.unsubscribe(channel);
                } catch (RuntimeException e) {
                    // gone with the connection
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The reader: subscribes on a connection of the pool, and again after a pause when it fails, until closed. */
    @Override
    public void run() {
        long pauseMs = 50;
        while (true) {
            // Borrowed outside the lock: a drained pool may keep this thread waiting, never a waiter that
            // subscribes or leaves meanwhile.
            Jedis jedis;
            try {
                jedis = pool.getResource();
            } catch (RuntimeException e) {
                jedis = null;
            }
            String[] names = connected(jedis);
            if (names == null) {
                return;
            }
            if (jedis != null && listen(jedis, names)) {
                pauseMs = 50;
            }
            try {
                Thread.sleep(pauseMs);
            } catch (InterruptedException e) {
                return;
            }
            pauseMs = Math.min(1_000, pauseMs * 2);
        }
    }

    /** Takes {@code jedis} as the connection and the channels to subscribe on it; null once closed. */
    private String[] connected(Jedis jedis) {
        lock.lock();
        try {
            if (closed) {
                if (jedis != null) {
                    jedis.close();
                }
                return null;
            }
            connection = jedis;
            List<String> all = listeners.channels();
            all.add(idle);
            return all.toArray(String[]::new);
        } finally {
            lock.unlock();
        }
    }

    /** Reads {@code jedis} subscribed to {@code names} until it fails or is closed; true when it was unsubscribed. */
    private boolean listen(Jedis jedis, String[] names) {
        JedisPubSub pubSub = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                listeners.deliver(channel);
            }

            @Override
            public void onSubscribe(String channel, int count) {
                live(this, names);
                listeners.confirmed(channel);
            }
        };
        try {
            jedis.getConnection().setTimeoutInfinite();
            jedis.subscribe(pubSub, names);  // returns when unsubscribed from everything
            return true;
        } catch (RuntimeException e) {
            log.debug("release channel connection failed; waiters wake when holders' time is up until it "
                    + "is back: {}", e.toString());
            return false;
        } finally {
            lock.lock();
            try {
                current = null;
                connection = null;
                listeners.disconnected();
            } finally {
                lock.unlock();
            }
            try {
                jedis.close();
            } catch (RuntimeException e) {
                // broken already
            }
        }
    }

    /**
     * The connection is subscribed: channels added since its {@code names} were taken are subscribed now. Not those
     * names again: their acknowledgements are still on their way, and a second one, read after a waiter left and
     * another came, would confirm the newcomer's subscription before Redis had it.
     */
    private void live(JedisPubSub pubSub, String[] names) {
        lock.lock();
        try {
            if (current == pubSub || closed) {
                return;
            }
            current = pubSub;
            List<String> missing = listeners.unsubscribed();
            missing.removeAll(List.of(names));
            if (!missing.isEmpty()) {
                pubSub.subscribe(missing.toArray(String[]::new));
            }
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            closed = true;
            if (connection != null) {
                try {
                    connection.getConnection().disconnect();
                } catch (RuntimeException e) {
                    // closing anyway
                }
            }
            if (reader != null) {
                reader.interrupt();
            }
        } finally {
            lock.unlock();
        }
    }
}
