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
 * @param epochSeq with a durable epoch: hash {e, n}, the resource's epoch and its grants in it (instead of seq)
 * @param epochClaim with a durable epoch: the claim under which a new epoch may be installed; gone with a loss
 */
public record LeaseKeys(String lock, String delay, String seq, String channel, String epochSeq, String epochClaim) {

    public static LeaseKeys of(String prefix, ResourceName resource) {
        String base = prefix + "{" + resource.value() + "}";
        return new LeaseKeys(base + ":lock", base + ":delay", base + ":seq", base + ":released",
                base + ":eseq", base + ":eclaim");
    }

    /** The keys of the clock-floor scripts. */
    public List<String> all() {
        return List.of(lock, delay, seq);
    }

    /** The marker of a holder whose acquire gave up without an answer (same slot as the lock). */
    public String givenUp(String holder) {
        return lock.substring(0, lock.length() - ":lock".length()) + ":gaveup:" + holder;
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
        return List.of(lock, delay, epochSeq, epochClaim);
    }
}
