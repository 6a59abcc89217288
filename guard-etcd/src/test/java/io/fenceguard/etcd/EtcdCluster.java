package io.fenceguard.etcd;

import io.etcd.jetcd.Client;
import io.fenceguard.test.support.EtcdProcesses;
import java.time.Duration;

/**
 * A real etcd cluster of {@code n} member processes ({@link EtcdProcesses}) and the jetcd clients of this module's
 * tests; without an etcd binary, the tests that need one are skipped.
 */
public final class EtcdCluster implements AutoCloseable {

    /** Calls that wait for a loaded test machine; production keeps the default. */
    public static final EtcdLeaseConfig CONFIG = new EtcdLeaseConfig(EtcdLeaseConfig.DEFAULT_KEY_PREFIX, Duration.ofSeconds(5));

    private static EtcdCluster shared;
    private static Client sharedClient;

    private final EtcdProcesses members;

    private EtcdCluster(EtcdProcesses members) {
        this.members = members;
    }

    public static EtcdCluster start(int n) {
        EtcdProcesses.assumeAvailable();
        return new EtcdCluster(EtcdProcesses.start(n));
    }

    /**
     * One three-member cluster and client for the tests of a JVM that neither kill nor pause members (the contract
     * suites); stopped when the JVM ends. Fault tests start a cluster of their own.
     */
    public static synchronized Client sharedClient() {
        if (sharedClient == null) {
            shared = start(3);
            sharedClient = shared.client();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                sharedClient.close();
                shared.close();
            }, "etcd-test-cluster-stop"));
        }
        return sharedClient;
    }

    /** Every member's client URL. */
    public String endpoints() {
        return members.endpoints();
    }

    public Client client() {
        return Client.builder().endpoints(members.clientUrls().toArray(String[]::new)).build();
    }

    /** The index of the current leader, as the members' status tells (waits up to 10 s for one). */
    int leader() {
        return members.leader(Duration.ofSeconds(10));
    }

    /** Kills a member at once (SIGKILL). */
    void kill(int member) {
        members.kill(member);
    }

    @Override
    public void close() {
        members.close();
    }
}
