package io.fenceguard.zookeeper.internal;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;

/**
 * A lease this provider granted: its node and until when it counts without a renewal (local
 * {@link System#nanoTime()}: only this process's own holder is measured with it).
 */
public final class HeldLease {

    /** Resource and holder: a holder id is unique per lease, the resource makes a reused one harmless. */
    public record Key(ResourceName resource, String holder) {
        public static Key of(LeaseRequest request) {
            return new Key(request.resource(), request.holder());
        }
    }

    private final Key key;
    private final String path;
    private final FencingToken token;
    private long expiresAtNanos;
    private boolean ended;

    public HeldLease(Key key, String path, FencingToken token, long expiresAtNanos) {
        this.key = key;
        this.path = path;
        this.token = token;
        this.expiresAtNanos = expiresAtNanos;
    }

    public Key key() {
        return key;
    }

    public String path() {
        return path;
    }

    public boolean matches(Grant grant) {
        return token.equals(grant.token());
    }

    /** Counts it from a renewal sent at {@code sentAtNanos}; false when it had already ended. */
    public synchronized boolean extend(long expiresAtNanos) {
        if (ended) {
            return false;
        }
        this.expiresAtNanos = Math.max(this.expiresAtNanos, expiresAtNanos);
        return true;
    }

    /** Nanoseconds until it ends without a renewal; 0 or less once it has. */
    public synchronized long remainingNanos(long now) {
        return ended ? 0 : expiresAtNanos - now;
    }

    /** Ends it once; true for the caller that ended it. */
    public synchronized boolean end() {
        if (ended) {
            return false;
        }
        ended = true;
        return true;
    }
}
