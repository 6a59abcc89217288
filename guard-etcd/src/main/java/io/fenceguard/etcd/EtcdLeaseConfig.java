package io.fenceguard.etcd;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of an {@link EtcdLeaseProvider}.
 *
 * @param keyPrefix   the start of every lock key, e.g. {@code fenceguard/leases/}: a resource's holders and waiters
 *                    are the keys {@code <keyPrefix><resource>/<etcd lease id>}
 * @param callTimeout the most one call to etcd waits for its answer: an acquire returns within its wait plus this,
 *                    a release within this, whatever etcd does (a leader election, a partition)
 */
public record EtcdLeaseConfig(String keyPrefix, Duration callTimeout) {

    /** Where the lock keys live unless told otherwise. */
    public static final String DEFAULT_KEY_PREFIX = "fenceguard/leases/";
    /** Long enough for a leader election of a healthy cluster (about one election timeout). */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(2);

    public EtcdLeaseConfig {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Objects.requireNonNull(callTimeout, "callTimeout");
        if (keyPrefix.isEmpty() || !keyPrefix.endsWith("/")) {
            throw new IllegalArgumentException("keyPrefix must be non-empty and end with '/', got '" + keyPrefix + "'");
        }
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("callTimeout must be positive, got " + callTimeout);
        }
    }

    /** The defaults: keys under {@value #DEFAULT_KEY_PREFIX}, calls answered within 2 s. */
    public static EtcdLeaseConfig defaults() {
        return new EtcdLeaseConfig(DEFAULT_KEY_PREFIX, DEFAULT_CALL_TIMEOUT);
    }
}
