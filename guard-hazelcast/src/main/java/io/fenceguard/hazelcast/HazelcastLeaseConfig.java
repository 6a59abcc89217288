package io.fenceguard.hazelcast;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link HazelcastLeaseProvider}.
 *
 * @param lockNamePrefix the start of every lock's name: a resource's lock is the CP {@code FencedLock}
 *                       {@code <lockNamePrefix><resource>@<cpGroup>}
 * @param cpGroup        the CP group whose Raft log holds the locks (Hazelcast's {@code default} group unless told
 *                       otherwise); all locks of one provider live in it, so a resource's fences come from one log
 * @param callTimeout    the most one call to the CP Subsystem waits for its answer: an acquire returns within its wait
 *                       plus this, a release within this, a renewal is answered within this, whatever the CP group
 *                       does (a leader election, a lost majority)
 */
public record HazelcastLeaseConfig(String lockNamePrefix, String cpGroup, Duration callTimeout) {

    /** Where the locks' names start unless told otherwise. */
    public static final String DEFAULT_LOCK_NAME_PREFIX = "fenceguard:";
    /** Hazelcast's own default CP group. */
    public static final String DEFAULT_CP_GROUP = "default";
    /** Long enough for a leader election of a healthy CP group (a few election timeouts of 2 s). */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(5);

    public HazelcastLeaseConfig {
        Objects.requireNonNull(lockNamePrefix, "lockNamePrefix");
        Objects.requireNonNull(cpGroup, "cpGroup");
        Objects.requireNonNull(callTimeout, "callTimeout");
        // '@' separates a CP object's name from its group in Hazelcast's naming.
        if (lockNamePrefix.contains("@")) {
            throw new IllegalArgumentException("lockNamePrefix must not contain '@', got '" + lockNamePrefix + "'");
        }
        if (cpGroup.isBlank() || cpGroup.contains("@")) {
            throw new IllegalArgumentException("cpGroup must be a non-blank name without '@', got '" + cpGroup + "'");
        }
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("callTimeout must be positive, got " + callTimeout);
        }
    }

    /** The defaults: locks named {@value #DEFAULT_LOCK_NAME_PREFIX}..., in the default CP group, calls answered within 5 s. */
    public static HazelcastLeaseConfig defaults() {
        return new HazelcastLeaseConfig(DEFAULT_LOCK_NAME_PREFIX, DEFAULT_CP_GROUP, DEFAULT_CALL_TIMEOUT);
    }
}
