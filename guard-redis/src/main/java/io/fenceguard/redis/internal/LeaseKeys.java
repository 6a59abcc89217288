package io.fenceguard.redis.internal;

import io.fenceguard.core.ResourceName;
import java.util.List;

/**
 * The Redis names of one resource. All keys carry the resource as a hash tag so that Redis Cluster
 * keeps them in one slot and a single script can touch them atomically.
 *
 * @param lock   hash {holder, token}; lives for the lease time, renewed by the watchdog
 * @param delay  marker that outlives the lock by the lock-delay; deleted only by a clean release
 * @param seq    the last token minted; outlives both so that tokens keep growing while the resource is busy
 * @param channel pub/sub channel told on every release
 */
public record LeaseKeys(String lock, String delay, String seq, String channel) {

    public static LeaseKeys of(String prefix, ResourceName resource) {
        String base = prefix + "{" + resource.value() + "}";
        return new LeaseKeys(base + ":lock", base + ":delay", base + ":seq", base + ":released");
    }

    public List<Object> all() {
        return List.of(lock, delay, seq);
    }
}
