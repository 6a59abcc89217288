package io.fenceguard.redis.internal;

import io.fenceguard.core.ResourceName;
import java.util.List;

/**
 * The Redis names of one resource. All keys carry the resource as a hash tag so that Redis Cluster
 * keeps them in one slot and a single script can touch them atomically. Each name is made when asked for: an acquire
 * uses three of them, a release three others, a renewal two, and a lease's keys are made again for each call.
 */
public final class LeaseKeys {

    private final String base;

    private LeaseKeys(String base) {
        this.base = base;
    }

    public static LeaseKeys of(String prefix, ResourceName resource) {
        return new LeaseKeys(prefix + "{" + resource.value() + "}");
    }

    /** Hash {holder, token}; lives for the lease time, renewed by the watchdog. */
    public String lock() {
        return base + ":lock";
    }

    /** Marker that outlives the lock by the lock-delay; deleted only by a clean release. */
    public String delay() {
        return base + ":delay";
    }

    /** The last token minted; outlives both so that tokens keep growing while the resource is busy. */
    public String seq() {
        return base + ":seq";
    }

    /** Pub/sub channel told on every release. */
    public String channel() {
        return base + ":released";
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
