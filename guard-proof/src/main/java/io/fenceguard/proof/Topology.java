package io.fenceguard.proof;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where everything of one run is and how clients behave: what a worker JVM needs to join the run,
 * written to a file that it is given on its command line.
 *
 * @param redisUris       the single Redis server as each client process reaches it: through a delay proxy
 *                        of its own (process name: {@code main}, {@code w1}, …), so that one client's link
 *                        can be slowed while the others' is not
 * @param sentinelUris    the sentinels of the failover group
 * @param store           where the locks are: {@code redis} (the single server and the Sentinel group) or
 *                        {@code etcd} (every resource on the three-member etcd cluster)
 * @param etcdEndpoints   per client process, its links to the etcd members (empty unless the store is etcd)
 * @param databases       the databases holding the resources (PostgreSQL first)
 * @param httpPort        the resource server that fences HTTP writes
 * @param deadlineMillis  when clients stop starting operations (epoch millis)
 */
public record Topology(boolean fencing, String runId, long seed, long leaseMillis, java.util.Map<String, String> redisUris,
        List<String> sentinelUris, String store, java.util.Map<String, List<String>> etcdEndpoints,
        List<Database> databases, int httpPort, long deadlineMillis) {

    public static final String REDIS = "redis";
    public static final String ETCD = "etcd";

    /** A JDBC database; {@code dialect} is the migration folder: {@code postgresql} or {@code mysql}. */
    public record Database(String name, String dialect, String url, String user, String password) {
    }

    /** Counters, ledger accounts and HTTP registers; each named resource is one lock and one row. */
    public static final List<String> COUNTERS = List.of("counter:1", "counter:2", "counter:3");
    public static final List<String> ACCOUNTS = List.of("account:1", "account:2", "account:3");
    public static final List<String> REGISTERS = List.of("register:1", "register:2");

    /** The names of the client processes: this JVM ({@code main}) first, then the worker JVMs. */
    public static List<String> processes() {
        List<String> names = new java.util.ArrayList<>(List.of("main"));
        for (int w = 1; w <= ProofSettings.WORKER_JVMS; w++) {
            names.add("w" + w);
        }
        return names;
    }

    /** The single Redis server as {@code process} reaches it. */
    public String redisUriFor(String process) {
        String uri = redisUris.get(process);
        if (uri == null) {
            throw new IllegalArgumentException("no Redis link for client process " + process + "; processes: "
                    + redisUris.keySet());
        }
        return uri;
    }

    public static List<String> allResources() {
        return java.util.stream.Stream.of(COUNTERS, ACCOUNTS, REGISTERS).flatMap(List::stream).toList();
    }

    /**
     * On Redis, half of the resources are locked on the proxied single server, half on the Sentinel group; on
     * etcd, all on the cluster.
     */
    public String lockServiceOf(String resource) {
        if (ETCD.equals(store)) {
            return ETCD;
        }
        return (resource.charAt(resource.length() - 1) - '0') % 2 == 1 ? "single" : "sentinel";
    }

    /** The etcd members as {@code process} reaches them. */
    public List<String> etcdEndpointsFor(String process) {
        List<String> endpoints = etcdEndpoints.get(process);
        if (endpoints == null) {
            throw new IllegalArgumentException("no etcd link for client process " + process + "; processes: "
                    + etcdEndpoints.keySet());
        }
        return endpoints;
    }

    /** JDBC resources spread over the databases; HTTP registers live where the resource server writes. */
    public Database databaseOf(String resource) {
        return databases.get(databaseIndexOf(resource, databases.size()));
    }

    public static int databaseIndexOf(String resource, int databases) {
        return resource.startsWith("register:") ? 0 : allResources().indexOf(resource) % databases;
    }

    public void write(Path path) {
        try {
            Files.createDirectories(path.getParent());
            Files.writeString(path, HistoryFile.JSON.writeValueAsString(this));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Topology read(Path path) {
        try {
            return HistoryFile.JSON.readValue(Files.readString(path), Topology.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
