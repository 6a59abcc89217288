package io.fenceguard.spring.boot.autoconfigure.etcd;

import io.etcd.jetcd.Client;
import io.fenceguard.etcd.EtcdLeaseConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code fenceguard.etcd.*}: leases on etcd ({@code fenceguard.lease.store=etcd}). */
@ConfigurationProperties("fenceguard.etcd")
public class FenceguardEtcdProperties {

    /**
     * The cluster's client URLs, e.g. {@code http://etcd1:2379,http://etcd2:2379,http://etcd3:2379}: used to make a
     * jetcd client of fenceguard's own only when the application has no jetcd Client bean.
     */
    private List<String> endpoints = new ArrayList<>();
    /** The start of every lock key; must end with '/'. */
    private String keyPrefix = "fenceguard/leases/";
    /** The most one call to etcd waits for its answer (an acquire returns within its wait plus this). */
    private Duration callTimeout = Duration.ofSeconds(2);

    public EtcdLeaseConfig toEtcdLeaseConfig() {
        try {
            return new EtcdLeaseConfig(keyPrefix, callTimeout);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid fenceguard.etcd.* properties: " + e.getMessage(), e);
        }
    }

    Client toClient() {
        List<String> urls = endpoints.stream().map(String::trim).filter(url -> !url.isEmpty()).toList();
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("fenceguard.etcd.endpoints lists no endpoint");
        }
        try {
            return Client.builder().endpoints(urls.toArray(String[]::new)).build();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid fenceguard.etcd.endpoints " + urls + ": " + e.getMessage(), e);
        }
    }

    public List<String> getEndpoints() {
        return endpoints;
    }

    public void setEndpoints(List<String> endpoints) {
        this.endpoints = endpoints;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getCallTimeout() {
        return callTimeout;
    }

    public void setCallTimeout(Duration callTimeout) {
        this.callTimeout = callTimeout;
    }
}
