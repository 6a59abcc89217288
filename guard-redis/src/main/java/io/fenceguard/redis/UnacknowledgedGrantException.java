package io.fenceguard.redis;

import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.ResourceName;
import java.time.Duration;

/**
 * A grant that fewer replicas acknowledged than {@link RedisLeaseConfig#replicaAcknowledgements()} asks for, within
 * {@link RedisLeaseConfig#replicaTimeout()}: it was given back, since a failover to a replica without it would grant
 * the lock again. Retrying is safe; it succeeds once the replicas answer again.
 */
public class UnacknowledgedGrantException extends LeaseUnavailableException {

    private final int acknowledged;
    private final int required;
    private final Duration replicaTimeout;

    public UnacknowledgedGrantException(ResourceName resource, int acknowledged, int required, Duration replicaTimeout) {
        super("cannot acquire '" + resource + "': " + acknowledged + " of " + required + " replica(s) acknowledged the "
                + "grant within " + replicaTimeout.toMillis() + " ms; it was given back, since a failover could grant "
                + "it again", resource, null);
        this.acknowledged = acknowledged;
        this.required = required;
        this.replicaTimeout = replicaTimeout;
    }

    /** How many replicas acknowledged the grant in time. */
    public int acknowledged() {
        return acknowledged;
    }

    /** How many had to. */
    public int required() {
        return required;
    }

    /** How long the grant waited for them. */
    public Duration replicaTimeout() {
        return replicaTimeout;
    }
}
