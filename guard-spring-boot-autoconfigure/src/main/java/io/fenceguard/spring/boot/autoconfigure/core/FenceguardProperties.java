package io.fenceguard.spring.boot.autoconfigure.core;

import io.fenceguard.core.LeaseConfig;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code fenceguard.enabled} and {@code fenceguard.lease.*}: how leases are held, whatever the store.
 * Store settings live with their store ({@code fenceguard.redis.*}). Defaults are those of
 * {@link LeaseConfig}.
 */
@ConfigurationProperties("fenceguard")
public class FenceguardProperties {

    /** Whether to auto-configure leases: the LeaseManager, its lease store, @Fenced methods, metrics and health. */
    private boolean enabled = true;

    private final Lease lease = new Lease();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Lease getLease() {
        return lease;
    }

    /** {@code fenceguard.lease.*}. */
    public static class Lease {

        /**
         * Where leases are kept. auto: the application's own LeaseProvider bean, else Redis when there is a
         * RedissonClient bean (or a single Jedis pool bean), else startup fails; redis: Redis only; memory: this JVM's memory, for tests and
         * single-instance applications (tokens start again at 1 on restart); zookeeper, jdbc, redlock, etcd, hazelcast:
         * the store of that module (fenceguard.zookeeper.*, fenceguard.jdbc-lease.*, fenceguard.redlock.*, fenceguard.etcd.*,
         * fenceguard.hazelcast.*).
         */
        private LeaseStore store = LeaseStore.AUTO;
        /** How long the store keeps a lease without renewal. */
        private Duration leaseTime = Duration.ofSeconds(30);
        /** How often a held lease is renewed; unset means a third of lease-time (10s with the default lease-time). */
        private Duration renewInterval;
        /** How long callers wait for a busy resource when they name no wait, for example @Fenced methods. */
        private Duration defaultWait = Duration.ofSeconds(10);
        /** First part of every holder id, to tell application instances apart in the store; no ':' allowed. */
        private String clientName = "fenceguard";
        /**
         * Share of the lease time below which a lease whose renewals fail is reported at risk (a WARN line, the
         * fenceguard.lease.at-risk metric), before it is lost; between 0 and 1.
         */
        private double atRiskShare = 0.5;

        /**
         * The lease settings as the manager takes them.
         *
         * @throws IllegalArgumentException naming the property when a value is out of range
         */
        public LeaseConfig toLeaseConfig() {
            try {
                return LeaseConfig.builder().leaseTime(leaseTime).renewInterval(renewInterval)
                        .defaultWait(defaultWait).clientName(clientName).atRiskShare(atRiskShare).build();
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("invalid fenceguard.lease.* properties: " + e.getMessage(), e);
            }
        }

        public double getAtRiskShare() {
            return atRiskShare;
        }

        public void setAtRiskShare(double atRiskShare) {
            this.atRiskShare = atRiskShare;
        }

        public LeaseStore getStore() {
            return store;
        }

        public void setStore(LeaseStore store) {
            this.store = store;
        }

        public Duration getLeaseTime() {
            return leaseTime;
        }

        public void setLeaseTime(Duration leaseTime) {
            this.leaseTime = leaseTime;
        }

        public Duration getRenewInterval() {
            return renewInterval;
        }

        public void setRenewInterval(Duration renewInterval) {
            this.renewInterval = renewInterval;
        }

        public Duration getDefaultWait() {
            return defaultWait;
        }

        public void setDefaultWait(Duration defaultWait) {
            this.defaultWait = defaultWait;
        }

        public String getClientName() {
            return clientName;
        }

        public void setClientName(String clientName) {
            this.clientName = clientName;
        }
    }
}
