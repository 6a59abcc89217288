package io.fenceguard.redis.internal;

import io.fenceguard.redis.RedisScriptClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The bookkeeping of a client's release channels, whatever the driver: the listeners by channel, the channels Redis
 * confirmed subscribed on the current connection, and the confirmations waiters wait for. The client subscribes and
 * leaves on its connection; it calls {@link #add} and {@link #remove} under its own lock, so that a channel's
 * listeners and its confirmation change together, while the driver's thread reports to the other methods.
 */
public final class ChannelListeners {

    private final Map<String, List<Runnable>> listeners = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Void>> confirmations = new ConcurrentHashMap<>();
    private final Set<String> subscribed = ConcurrentHashMap.newKeySet();

    /** Adds a listener; the returned stage completes once Redis confirmed {@code channel} (now, if it did already). */
    public CompletableFuture<Void> add(String channel, Runnable onMessage) {
        listeners.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).add(onMessage);
        return subscribed.contains(channel) ? CompletableFuture.completedFuture(null)
                : confirmations.computeIfAbsent(channel, c -> new CompletableFuture<>());
    }

    /** Removes a listener: true when it was the last of {@code channel}, which the client may then leave. */
    public boolean remove(String channel, Runnable onMessage) {
        List<Runnable> each = listeners.get(channel);
        if (each == null || !each.remove(onMessage) || !each.isEmpty()) {
            return false;
        }
        listeners.remove(channel);
        confirmations.remove(channel);
        return true;
    }

    /** The subscription handed to a waiter: its confirmation, and {@code cancel} to stop listening. */
    public static RedisScriptClient.Subscription subscription(CompletionStage<?> confirmed, Runnable cancel) {
        return new RedisScriptClient.Subscription() {
            @Override
            public CompletionStage<?> confirmed() {
                return confirmed;
            }

            @Override
            public void cancel() {
                cancel.run();
            }
        };
    }

    /** A message on {@code channel}: runs its listeners. */
    public void deliver(String channel) {
        List<Runnable> each = listeners.get(channel);
        if (each != null) {
            each.forEach(Runnable::run);
        }
    }

    /** Redis confirmed {@code channel}: its waiters' confirmation completes. */
    public void confirmed(String channel) {
        subscribed.add(channel);
        CompletableFuture<Void> confirmed = confirmations.remove(channel);
        if (confirmed != null) {
            confirmed.complete(null);
        }
    }

    /** Subscribing {@code channel} failed: its waiters' confirmation fails (the next waiter asks again). */
    public void notConfirmed(String channel, Throwable cause) {
        CompletableFuture<Void> confirmed = confirmations.remove(channel);
        if (confirmed != null) {
            confirmed.completeExceptionally(cause);
        }
    }

    /** True when {@code channel} was subscribed on the current connection; it no longer is. */
    public boolean left(String channel) {
        return subscribed.remove(channel);
    }

    /** The connection is gone: no channel is subscribed. */
    public void disconnected() {
        subscribed.clear();
    }

    public boolean isSubscribed(String channel) {
        return subscribed.contains(channel);
    }

    public boolean hasListeners(String channel) {
        return listeners.containsKey(channel);
    }

    /** The channels with listeners, to subscribe on a new connection. */
    public List<String> channels() {
        return new ArrayList<>(listeners.keySet());
    }

    /** The channels with listeners that are not subscribed on the current connection. */
    public List<String> unsubscribed() {
        List<String> missing = channels();
        missing.removeAll(subscribed);
        return missing;
    }
}
