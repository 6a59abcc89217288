package io.fenceguard.zookeeper;

import java.util.Objects;
import org.apache.curator.utils.PathUtils;

/**
 * Settings of a {@link ZooKeeperLeaseProvider}.
 *
 * @param basePath the parent of every resource's node, e.g. {@code /fenceguard/leases}: each resource is
 *                 one container node below it, created when first needed and removed by ZooKeeper once
 *                 empty
 */
public record ZooKeeperLeaseConfig(String basePath) {

    /** Where the leases live unless told otherwise. */
    public static final String DEFAULT_BASE_PATH = "/fenceguard/leases";

    public ZooKeeperLeaseConfig {
        Objects.requireNonNull(basePath, "basePath");
        if (basePath.equals("/")) {
            throw new IllegalArgumentException("basePath must not be the root: the leases need a node of their own");
        }
        try {
            PathUtils.validatePath(basePath);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("basePath is not a valid ZooKeeper path: " + basePath + " ("
                    + e.getMessage() + ")", e);
        }
    }

    /** The defaults: leases under {@value #DEFAULT_BASE_PATH}. */
    public static ZooKeeperLeaseConfig defaults() {
        return new ZooKeeperLeaseConfig(DEFAULT_BASE_PATH);
    }
}
