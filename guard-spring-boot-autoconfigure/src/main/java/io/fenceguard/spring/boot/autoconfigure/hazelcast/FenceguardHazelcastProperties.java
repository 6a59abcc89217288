package io.fenceguard.spring.boot.autoconfigure.hazelcast;

import io.fenceguard.hazelcast.HazelcastLeaseConfig;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code fenceguard.hazelcast.*}: leases on Hazelcast's CP Subsystem ({@code fenceguard.lease.store=hazelcast}). */
@ConfigurationProperties("fenceguard.hazelcast")
public class FenceguardHazelcastProperties {

    /** The start of every lock's name: a resource's lock is the CP FencedLock named prefix, resource, '@', CP group. */
    private String lockNamePrefix = "fenceguard:";
    /** The CP group whose Raft log holds the locks (Hazelcast's default group unless set). */
    private String cpGroup = "default";
    /** The most one call to the CP Subsystem waits for its answer (an acquire returns within its wait plus this). */
    private Duration callTimeout = Duration.ofSeconds(5);

    public HazelcastLeaseConfig toHazelcastLeaseConfig() {
        try {
            return new HazelcastLeaseConfig(lockNamePrefix, cpGroup, callTimeout);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid fenceguard.hazelcast.* properties: " + e.getMessage(), e);
        }
    }

    public String getLockNamePrefix() {
        return lockNamePrefix;
    }

    public void setLockNamePrefix(String lockNamePrefix) {
        this.lockNamePrefix = lockNamePrefix;
    }

    public String getCpGroup() {
        return cpGroup;
    }

    public void setCpGroup(String cpGroup) {
        this.cpGroup = cpGroup;
    }

    public Duration getCallTimeout() {
        return callTimeout;
    }

    public void setCallTimeout(Duration callTimeout) {
        this.callTimeout = callTimeout;
    }
}
