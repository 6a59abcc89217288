package io.fenceguard.redis.internal;

import io.fenceguard.core.ResourceName;
import java.util.List;

/**
 * The Redis names of one resource. All keys carry the resource as a hash tag so that Redis Cluster
 * keeps them in one slot and a single script can touch them atomically. Each name is made when first asked for: an
 * acquire asks for three of them, a release for three others, a renewal for two, and a lease makes its keys again for
 * each of these calls.
 */
public final class LeaseKeys {

    private final String base;
    // made on first use; a race makes the same String twice, which is harmless
    private String lock;
    private String delay;
    private String seq;
    private String channel;

    private LeaseKeys(String base) {
        this.base = base;
    }

    public static LeaseKeys of(String prefix, ResourceName resource) {
        return new LeaseKeys(prefix + "{" + resource.value() + "}");
    }

    /** Hash {holder, token}; lives for the lease time, renewed by the watchdog. */
    public String lock() {
        String name = lock;
        return name != null ? name : (lock = base + ":lock");
    }

    /** Marker that outlives the lock by the lock-delay; deleted only by a clean release. */
    public String delay() {
        String name = delay;
        return name != null ? name : (delay = base + ":delay");
    }

    /** The last token minted; outlives both so that tokens keep growing while the resource is busy. */
    public String seq() {
        String name = seq;
        return name != null ? name : (seq = base + ":seq");
    }

    /** Pub/sub channel told on every release. */
    public String channel() {
        String name = channel;
        return name != null ? name : (channel = base + ":released");
    }

    /** With a durable epoch: hash {e, n}, the resource's epoch and its grants in it (instead of seq). */
    public String epochSeq() {
        return base + ":eseq";
    }

    /** With a durable epoch: the claim under which a new epoch may be installed; gone with a loss. */
    public String epochClaim() {
        return base + ":eclaim";
    }

    /** The keys of the clock-floor scripts. */
    public List<String> all() {
        return List.of(lock(), delay(), seq());
    }

    /** The marker of a holder whose acquire gave up without an answer (same slot as the lock). */
    public String givenUp(String holder) {
        return base + ":gaveup:" + holder;
    }

    /** {@code keys} and then the given-up marker of {@code holder}. */
    public List<String> withGivenUp(List<String> keys, String holder) {
        List<String> all = new java.util.ArrayList<>(keys.size() + 1);
        all.addAll(keys);
        all.add(givenUp(holder));
        return all;
    }

    /** The keys of the durable-epoch scripts. */
    public List<String> allWithEpoch() {
        return List.of(lock(), delay(), epochSeq(), epochClaim());
    }
}
