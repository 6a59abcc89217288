package io.fenceguard.redis;

import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.RedisCalls;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many replicas must acknowledge a grant before it is handed out ({@link RedisLeaseConfig#replicaAcknowledgements()}),
 * for both Redis lease providers: the configured number, or, left to the provider, one when the master has replicas
 * (asked once, at the first grant), none otherwise.
 */
final class ReplicaAcknowledgements {

    private static final Logger log = LoggerFactory.getLogger(ReplicaAcknowledgements.class);
    private static final AtomicBoolean NEVER_TOLD = new AtomicBoolean();

    private final RedisLeaseConfig config;
    private final RedisScriptClient client;
    private final RedisCalls calls;
    /** -1 until the master was asked how many replicas it has. */
    private volatile int required;

    ReplicaAcknowledgements(RedisLeaseConfig config, RedisScriptClient client, RedisCalls calls) {
        if (config.replicaAcknowledgements() > 0 && !client.waitsForReplicas()) {
            throw new IllegalArgumentException("replicaAcknowledgements(" + config.replicaAcknowledgements()
                    + ", …) needs a client that can wait for replicas; " + client.name() + " cannot");
        }
        if (config.replicaAcknowledgements() == 0 && NEVER_TOLD.compareAndSet(false, true)) {
            log.warn("fenceguard: Redis grants are handed out without waiting for a replica (replicaAcknowledgements "
                    + "0): a failover right after a grant can forget it and grant the same lock again");
        }
        this.config = config;
        this.client = client;
        this.calls = calls;
        this.required = config.replicaAcknowledgements() >= 0 ? config.replicaAcknowledgements()
                : client.waitsForReplicas() ? -1 : 0;
    }

    /** The replicas a grant on {@code key} waits for; the first call may ask the master (within {@code giveUpAt}). */
    int required(ResourceName resource, String key, long giveUpAt) {
        int known = required;
        if (known >= 0) {
            return known;
        }
        int connected = calls.call(resource, "count the replicas for", giveUpAt,
                () -> client.connectedReplicas(key, giveUpAt), null);
        known = connected > 0 ? 1 : 0;
        if (known > 0) {
            log.info("fenceguard: the Redis master has {} replica(s); each grant waits for one to acknowledge it "
                    + "(at most {} ms)", connected, config.replicaTimeout().toMillis());
        }
        required = known;
        return known;
    }

    /** Whether a grant that {@code acknowledged} replicas acknowledged may be handed out. */
    static boolean enough(int acknowledged, int required) {
        return required <= 0 || acknowledged >= required;
    }

    /** The refusal of a grant that too few replicas acknowledged (the caller gave it back first). */
    UnacknowledgedGrantException refusal(ResourceName resource, int acknowledged, int required) {
        return new UnacknowledgedGrantException(resource, acknowledged, required, config.replicaTimeout());
    }
}
