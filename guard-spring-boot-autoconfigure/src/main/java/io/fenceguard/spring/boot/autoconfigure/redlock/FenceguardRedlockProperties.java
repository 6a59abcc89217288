package io.fenceguard.spring.boot.autoconfigure.redlock;

import io.fenceguard.redlock.RedlockLeaseConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code fenceguard.redlock.*}: leases over independent Redis masters ({@code fenceguard.lease.store=redlock}). */
@ConfigurationProperties("fenceguard.redlock")
public class FenceguardRedlockProperties {

    /**
     * The independent Redis masters, e.g. {@code redis://10.0.0.1:6379,redis://10.0.0.2:6379,redis://10.0.0.3:6379}:
     * three or five, each a server of its own (not replicas of one another).
     */
    private List<String> addresses = new ArrayList<>();
    /** Password of the masters, when they need one. */
    private String password;
    /** Start of every key on the masters. */
    private String keyPrefix = "fgrl:";
    /** How long each step waits for a master's answer; a master that does not answer in time counts as a "no". */
    private Duration masterTimeout = Duration.ofMillis(100);
    /** Share of the lease time allowed for clock-rate differences between the masters, in [0, 0.5). */
    private double driftFactor = 0.01;
    /** Added to the drift allowance, for the masters' expiry resolution. */
    private Duration minDrift = Duration.ofMillis(2);
    /** First random pause between attempts on a busy resource (grows ×1.5 with ±50 % jitter). */
    private Duration minRetry = Duration.ofMillis(5);
    /** Longest pause between attempts on a busy resource. */
    private Duration maxRetry = Duration.ofMillis(200);
    /** Connect timeout of the client of each master. */
    private Duration connectTimeout = Duration.ofSeconds(1);

    public RedlockLeaseConfig toRedlockLeaseConfig() {
        try {
            return RedlockLeaseConfig.builder().keyPrefix(keyPrefix).masterTimeout(masterTimeout).driftFactor(driftFactor)
                    .minDrift(minDrift).minRetry(minRetry).maxRetry(maxRetry).build();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid fenceguard.redlock.* properties: " + e.getMessage(), e);
        }
    }

    public List<String> getAddresses() {
        return addresses;
    }

    public void setAddresses(List<String> addresses) {
        this.addresses = addresses;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getMasterTimeout() {
        return masterTimeout;
    }

    public void setMasterTimeout(Duration masterTimeout) {
        this.masterTimeout = masterTimeout;
    }

    public double getDriftFactor() {
        return driftFactor;
    }

    public void setDriftFactor(double driftFactor) {
        this.driftFactor = driftFactor;
    }

    public Duration getMinDrift() {
        return minDrift;
    }

    public void setMinDrift(Duration minDrift) {
        this.minDrift = minDrift;
    }

    public Duration getMinRetry() {
        return minRetry;
    }

    public void setMinRetry(Duration minRetry) {
        this.minRetry = minRetry;
    }

    public Duration getMaxRetry() {
        return maxRetry;
    }

    public void setMaxRetry(Duration maxRetry) {
        this.maxRetry = maxRetry;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }
}
