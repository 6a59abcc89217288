package io.fenceguard.spring.boot.autoconfigure.zookeeper;

import io.fenceguard.zookeeper.ZooKeeperLeaseConfig;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code fenceguard.zookeeper.*}: leases on ZooKeeper ({@code fenceguard.lease.store=zookeeper}). */
@ConfigurationProperties("fenceguard.zookeeper")
public class FenceguardZooKeeperProperties {

    /**
     * The ensemble, e.g. {@code zk1:2181,zk2:2181,zk3:2181}: used to make a Curator client of fenceguard's
     * own only when the application has no CuratorFramework bean.
     */
    private String connectString;
    /** Parent node of every resource's lease nodes. */
    private String basePath = "/fenceguard/leases";
    /** Session timeout of fenceguard's own Curator client: a pause longer than this loses every lease (REVOKED). */
    private Duration sessionTimeout = Duration.ofSeconds(30);
    /** Connection timeout of fenceguard's own Curator client. */
    private Duration connectionTimeout = Duration.ofSeconds(10);

    public ZooKeeperLeaseConfig toZooKeeperLeaseConfig() {
        try {
            return new ZooKeeperLeaseConfig(basePath);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid fenceguard.zookeeper.* properties: " + e.getMessage(), e);
        }
    }

    public String getConnectString() {
        return connectString;
    }

    public void setConnectString(String connectString) {
        this.connectString = connectString;
    }

    public String getBasePath() {
        return basePath;
    }

    public void setBasePath(String basePath) {
        this.basePath = basePath;
    }

    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }
}
