package io.fenceguard.proof;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.ClaimMode;
import io.fenceguard.test.support.RedisSentinelGroup;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import io.etcd.jetcd.Client;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/**
 * What the clients of one JVM share: a Redisson client per Redis deployment with its lock service,
 * a pool per database (wrapped by fenceguard-jdbc when fencing) and an HTTP client.
 */
public final class ClientKit implements AutoCloseable {

    /** The fenced table: every counter, account total and HTTP register is a row of it. */
    public static final String CELL_TABLE = "proof_cell";

    private final Topology topology;
    private final List<RedissonClient> redissons;
    private final Client etcd;
    private final Map<String, LockService> locks = new LinkedHashMap<>();
    private final Map<String, HikariDataSource> pools = new LinkedHashMap<>();
    private final Map<String, DataSource> dataSources = new LinkedHashMap<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    public ClientKit(Topology topology, String clientName, int clients) {
        this.topology = topology;
        if (Topology.ETCD.equals(topology.store())) {
            this.redissons = List.of();
            this.etcd = etcdClient(topology.etcdEndpointsFor(clientName));
            locks.put(Topology.ETCD, topology.fencing() ? LockService.fenceguardEtcd(etcd, topology, clientName + "-e")
                    : LockService.etcdLock(etcd, topology));
        } else {
            this.etcd = null;
            RedissonClient single = Redisson.create(singleConfig(topology.redisUriFor(clientName), clients));
            RedissonClient sentinel = Redisson.create(sentinelConfig(topology.sentinelUris(), clients));
            this.redissons = List.of(single, sentinel);
            locks.put("single", lockService(single, clientName + "-s"));
            locks.put("sentinel", lockService(sentinel, clientName + "-f"));
        }
        for (Topology.Database db : topology.databases()) {
            HikariDataSource pool = pool(db, clients + 2);
            pools.put(db.name(), pool);
            dataSources.put(db.name(), topology.fencing() ? fenced(pool) : pool);
        }
    }

    static DataSource fenced(DataSource pool) {
        // The mark is claimed before the first statement, so the read of a read-modify-write is fenced too.
        return FencedDataSource.wrap(pool, FencingConfig.builder().fence(CELL_TABLE)
                .claimMode(ClaimMode.FIRST_STATEMENT).build());
    }

    private LockService lockService(RedissonClient redisson, String name) {
        return topology.fencing() ? LockService.fenceguard(redisson, topology, name)
                : LockService.redissonFencedLock(redisson, topology);
    }

    public Topology topology() {
        return topology;
    }

    public LockService locksFor(String resource) {
        return locks.get(topology.lockServiceOf(resource));
    }

    public DataSource dataSourceFor(String resource) {
        return dataSources.get(topology.databaseOf(resource).name());
    }

    public HttpClient http() {
        return http;
    }

    static Config singleConfig(String uri, int clients) {
        Config config = new Config();
        // Redisson's default command timeout (3 s), longer than the 1.5 s lease: a grant answered late
        // over a slow link is still taken by the unfenced client, as it would be in a default deployment
        config.useSingleServer().setAddress(uri).setTimeout(3_000).setConnectTimeout(1_000)
                .setConnectionPoolSize(Math.max(4, clients)).setConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(4).setSubscriptionConnectionMinimumIdleSize(1);
        config.setThreads(2);
        config.setNettyThreads(4);
        return config;
    }

    static Config sentinelConfig(List<String> sentinels, int clients) {
        Config config = new Config();
        config.useSentinelServers().setMasterName(RedisSentinelGroup.MASTER_NAME)
                .addSentinelAddress(sentinels.toArray(String[]::new))
                .setReadMode(ReadMode.MASTER).setCheckSentinelsList(false)
                .setTimeout(1_000).setConnectTimeout(1_000)
                .setMasterConnectionPoolSize(Math.max(4, clients)).setMasterConnectionMinimumIdleSize(1)
                .setSlaveConnectionMinimumIdleSize(1).setSlaveConnectionPoolSize(2)
                .setSubscriptionConnectionPoolSize(4).setSubscriptionConnectionMinimumIdleSize(1);
        config.setThreads(2);
        config.setNettyThreads(4);
        return config;
    }

    /** A jetcd client on one process's links to the members; gRPC keep-alive pings notice a dead link. */
    static Client etcdClient(List<String> endpoints) {
        return Client.builder().endpoints(endpoints.toArray(String[]::new))
                .connectTimeout(Duration.ofSeconds(1))
                .keepaliveTime(Duration.ofSeconds(5)).keepaliveTimeout(Duration.ofSeconds(3))
                .retryMaxDuration(LockService.ETCD_CALL_TIMEOUT)
                .build();
    }

    static HikariDataSource pool(Topology.Database db, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.user());
        config.setPassword(db.password());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(10_000);
        config.setPoolName("proof-" + db.name());
        return new HikariDataSource(config);
    }

    @Override
    public void close() {
        locks.values().forEach(LockService::close);
        redissons.forEach(RedissonClient::shutdown);
        if (etcd != null) {
            etcd.close();
        }
        pools.values().forEach(HikariDataSource::close);
    }
}
