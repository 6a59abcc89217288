package io.fenceguard.proof;

import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.PostgresProcess;
import io.fenceguard.test.support.RedisClusterProcesses;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.faults.DelayProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The multi-instance run: three instances of the example service (its jar, as processes) on one Redis Cluster of
 * three masters and three replicas and one PostgreSQL, all started here on loopback ports; clients deposit through
 * HTTP spread over the instances, and faults ({@link ClusterFault}) are injected during load one at a time. After
 * each, load stops, the audit outbox drains and the ledger's invariants are checked ({@link LedgerCheck}).
 * In soak mode ({@code proof.soak}) the faults repeat until the time is up while {@link SoakSampler} records the
 * instances' and servers' resources.
 */
public final class MultiInstanceRun {

    static final long INITIAL = 1_000;

    /** What to run; {@link #fromSystemProperties()} reads {@code proof.*} properties. */
    public record Settings(Path jar, Path out, int instances, int clients, int accounts, List<ClusterFault> faults,
            Duration load, Duration lease, Duration soak, Duration sampleEvery, long seed, boolean fencing) {

        public Settings {
            if (instances < 2 || clients < 1 || accounts < 1 || faults.isEmpty()) {
                throw new IllegalArgumentException("need at least 2 instances, 1 client, 1 account and 1 fault");
            }
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("no example-service jar at " + jar.toAbsolutePath()
                        + ": build it first (./mvnw -pl example-service -am package -DskipTests) or set proof.jar");
            }
        }

        public static Settings fromSystemProperties() {
            List<ClusterFault> faults = new ArrayList<>();
            for (String name : System.getProperty("proof.faults", "INSTANCE_KILL,REDIS_FAILOVER,POSTGRES_FAST_RESTART,"
                    + "POSTGRES_CRASH_RESTART,INSTANCE_PAUSE,STORE_LINK_DELAY,REDIS_LINK_DELAY,HOLDER_PAUSE").split(",")) {
                faults.add(ClusterFault.valueOf(name.trim()));
            }
            String soak = System.getProperty("proof.soak", "");
            boolean fencing = Boolean.parseBoolean(System.getProperty("proof.fencing", "true"));
            return new Settings(Path.of(System.getProperty("proof.jar", "../example-service/target/example-service.jar")),
                    Path.of(System.getProperty("proof.out", "target/proof")).resolve(fencing ? "multi" : "multi-fencing-off"),
                    Integer.getInteger("proof.instances", 3), Integer.getInteger("proof.clients", 6),
                    Integer.getInteger("proof.accounts", 6), faults,
                    ProofSettings.parse(System.getProperty("proof.fault-load"), Duration.ofSeconds(20)),
                    ProofSettings.parse(System.getProperty("proof.lease"), Duration.ofSeconds(2)),
                    ProofSettings.parse(soak, Duration.ZERO),
                    ProofSettings.parse(System.getProperty("proof.sample-every"), Duration.ofSeconds(10)),
                    Long.getLong("proof.seed", 20240611L), fencing);
        }
    }

    /** One fault and what was seen around it: deposits sent and acknowledged, answers by status, violations found. */
    public record FaultOutcome(int round, ClusterFault fault, String target, long sent, long acknowledged,
            Map<String, Long> answers, long drainMillis, List<String> violations) {
    }

    private final Settings settings;
    private final Random random;
    private final Map<String, Set<Long>> attempted = new ConcurrentHashMap<>();
    private final Map<String, Set<Long>> acknowledged = new ConcurrentHashMap<>();
    private final List<ExampleInstance> instances = new ArrayList<>();
    private RedisClusterProcesses redis;
    private PostgresProcess postgres;
    private LedgerCheck ledger;
    /** The last instance's link to PostgreSQL, delayed by {@link ClusterFault#STORE_LINK_DELAY}. */
    private DelayProxy postgresLink;
    /** The first instance's links to the Redis Cluster's nodes, delayed by {@link ClusterFault#REDIS_LINK_DELAY}. */
    private final List<DelayProxy> redisLinks = new ArrayList<>();

    private MultiInstanceRun(Settings settings) {
        this.settings = settings;
        this.random = new Random(settings.seed());
    }

    public static void main(String[] args) throws Exception {
        Quiet.logs();
        List<FaultOutcome> outcomes = run(Settings.fromSystemProperties());
        long failed = outcomes.stream().filter(o -> !o.violations().isEmpty()).count();
        System.out.printf("multi-instance run: %d faults, %d with violations%n", outcomes.size(), failed);
        if (failed > 0) {
            System.exit(1);
        }
    }

    /** Runs the faults (in soak mode, again and again until its time is up) and returns what each left. */
    public static List<FaultOutcome> run(Settings settings) throws Exception {
        MultiInstanceRun run = new MultiInstanceRun(settings);
        try {
            run.startServers();
            return run.faults();
        } finally {
            run.stop();
        }
    }

    private void startServers() throws Exception {
        Files.createDirectories(settings.out());
        redis = RedisClusterProcesses.start(3, 1);
        postgres = PostgresProcess.start();
        JdbcEndpoint server = postgres.endpoint();
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE ledger");
        }
        String url = server.url().replace("/postgres", "/ledger");
        ledger = new LedgerCheck(url, server.user(), server.password());
        postgresLink = DelayProxy.start(postgresPort(url));
        String delayedUrl = url.replace(":" + postgresPort(url) + "/", ":" + postgresLink.port() + "/");
        List<String> args = new ArrayList<>(List.of("--spring.profiles.active=demo",
                "--spring.datasource.username=" + server.user(),
                "--spring.datasource.password=" + server.password(),
                // Three pools share one PostgreSQL (100 connections by default).
                "--spring.datasource.hikari.maximum-pool-size=12",
                "--spring.data.redis.cluster.nodes=" + redis.hostPorts(),
                "--fenceguard.lease.lease-time=" + settings.lease().toMillis() + "ms",
                "--fenceguard.redis.lock-delay=300ms", "--fenceguard.lease.default-wait=20s",
                "--example.audit.relay-interval=300ms",
                // Only deposits that ask for a pause (HOLDER_PAUSE) are paused.
                "--example.chaos.enabled=true",
                // Within an hour's soak the idempotency table reaches its bound (one retention of audited calls)
                // and stays there; the default day would show only its rise.
                "--fenceguard.http.store.idempotency-retention=" + System.getProperty("proof.idempotency-retention", "10m"),
                "--management.endpoints.web.exposure.include=health,metrics"));
        if (!settings.fencing()) {
            // The control: the same service, leases still taken, its SQL writes not fenced (its audit endpoint still
            // is: the ledger check reads the balance against the audited amounts, so a lost balance update shows).
            args.add("--fenceguard.jdbc.enabled=false");
        }
        for (int i = 0; i < settings.instances(); i++) {
            List<String> own = new ArrayList<>(args);
            own.add("--spring.datasource.url=" + (i == settings.instances() - 1 ? delayedUrl : url));
            if (i == 0) {
                own.add("--spring.redis.redisson.config=" + redissonThroughLinks());
            }
            instances.add(new ExampleInstance("instance-" + i, settings.jar(), RedisProcess.freePort(), own,
                    settings.out()));
        }
        instances.get(0).start();   // alone: it runs the migrations; the others then start side by side
        List<Future<?>> others = new ArrayList<>();
        ExecutorService starter = Executors.newCachedThreadPool();
        try {
            for (ExampleInstance instance : instances.subList(1, instances.size())) {
                others.add(starter.submit(() -> {
                    instance.start();
                    return null;
                }));
            }
            for (var other : others) {
                other.get();
            }
        } finally {
            starter.shutdown();
        }
        instances.forEach(i -> System.out.printf("%s up on port %d%n", i.name(), i.port()));
        for (int i = 0; i < settings.accounts(); i++) {
            String account = "multi-" + i;
            var created = instances.get(i % instances.size()).send("PUT", "/accounts/" + account,
                    "{\"balance\":" + INITIAL + "}", Duration.ofSeconds(30));
            if (created.statusCode() != 201) {
                throw new IllegalStateException("PUT /accounts/" + account + ": " + created.statusCode() + " " + created.body());
            }
            attempted.put(account, ConcurrentHashMap.newKeySet());
            acknowledged.put(account, ConcurrentHashMap.newKeySet());
        }
    }

    private List<FaultOutcome> faults() throws Exception {
        List<FaultOutcome> outcomes = new ArrayList<>();
        long soakEnd = System.nanoTime() + settings.soak().toNanos();
        SoakSampler sampler = settings.soak().isZero() ? null
                : SoakSampler.start(instances, redis, ledger, settings.sampleEvery(), settings.out());
        try {
            int round = 0;
            do {
                for (ClusterFault fault : settings.faults()) {
                    FaultOutcome outcome = round(++round, fault);
                    outcomes.add(outcome);
                    System.out.printf("round %d %s on %s: %d sent, %d acknowledged, answers %s, drained in %d ms, %s%n",
                            round, fault, outcome.target(), outcome.sent(), outcome.acknowledged(), outcome.answers(),
                            outcome.drainMillis(), outcome.violations().isEmpty() ? "invariants hold"
                                    : "VIOLATIONS " + outcome.violations());
                    if (!settings.soak().isZero() && System.nanoTime() > soakEnd) {
                        break;
                    }
                }
            } while (!settings.soak().isZero() && System.nanoTime() < soakEnd);
        } finally {
            if (sampler != null) {
                sampler.close();
            }
        }
        MultiInstanceReport.write(settings, outcomes, settings.out().resolve("summary.txt"));
        return outcomes;
    }

    /** Load for the settings' time with {@code fault} injected halfway, then quiet: the outbox drains and the ledger is checked. */
    private FaultOutcome round(int round, ClusterFault fault) throws Exception {
        DepositClients clients = DepositClients.start(instances, settings.clients(), attempted, acknowledged, round);
        Thread.sleep(settings.load().toMillis() / 2);
        String target = inject(fault, round, clients);
        Thread.sleep(settings.load().toMillis() / 2);
        clients.stop();
        for (ExampleInstance instance : instances) {
            if (!instance.isAlive()) {
                instance.start();
            }
        }
        long start = System.nanoTime();
        long deadline = start + Duration.ofSeconds(120).toNanos();
        long pending;
        while ((pending = pendingAudits()) != 0 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        long drainMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();
        List<String> violations = new ArrayList<>();
        if (pending != 0) {
            violations.add(pending + " audit calls still in the outbox 120 s after the fault");
        } else {
            violations.addAll(ledger.violations(INITIAL, attempted, acknowledged));
        }
        return new FaultOutcome(round, fault, target, clients.sent(), clients.acknowledged(), new TreeMap<>(clients.answers()),
                drainMillis, violations);
    }

    /**
     * Redisson's configuration (one line of YAML) for a cluster client that reaches every node through a proxy of its
     * own: the seeds are the proxies, and the addresses the nodes announce (in CLUSTER SLOTS and redirects) are mapped
     * onto them, so that the whole link can be slowed.
     */
    private String redissonThroughLinks() {
        List<String> seeds = new ArrayList<>();
        List<String> map = new ArrayList<>();
        for (RedisProcess node : redis.nodes()) {
            DelayProxy link = DelayProxy.start(node.port());
            redisLinks.add(link);
            seeds.add("\"redis://127.0.0.1:" + link.port() + "\"");
            map.add("\"127.0.0.1:" + node.port() + "\": \"127.0.0.1:" + link.port() + "\"");
        }
        return "{clusterServersConfig: {nodeAddresses: [" + String.join(", ", seeds) + "], "
                + "natMapper: !<org.redisson.config.HostPortNatMapper> {hostsPortMap: {" + String.join(", ", map) + "}}}}";
    }

    private static int postgresPort(String jdbcUrl) {
        Matcher port = Pattern.compile("//[^:/]+:(\\d+)/").matcher(jdbcUrl);
        if (!port.find()) {
            throw new IllegalStateException("no port in " + jdbcUrl);
        }
        return Integer.parseInt(port.group(1));
    }

    private long pendingAudits() {
        try {
            return ledger.pendingAudits();
        } catch (Exception restarting) {
            return -1;   // PostgreSQL still recovering: not drained yet
        }
    }

    private String inject(ClusterFault fault, int round, DepositClients clients) throws Exception {
        switch (fault) {
            case INSTANCE_KILL -> {
                ExampleInstance victim = instances.get(random.nextInt(instances.size()));
                victim.kill();
                Thread.sleep(1_000);
                victim.start();
                return victim.name();
            }
            case REDIS_FAILOVER -> {
                List<RedisProcess> masters = redis.masters();
                RedisProcess master = masters.get(round % masters.size());
                RedisProcess promoted = redis.killMasterAndAwaitPromotion(master);
                return "master :" + master.port() + " -> :" + promoted.port();
            }
            case POSTGRES_FAST_RESTART -> {
                postgres.restart();
                return "postgres";
            }
            case POSTGRES_CRASH_RESTART -> {
                postgres.crash();
                postgres.restart();
                return "postgres";
            }
            case STORE_LINK_DELAY -> {
                ExampleInstance victim = instances.get(instances.size() - 1);
                postgresLink.addRoundTrip(settings.lease());
                try {
                    Thread.sleep(settings.lease().toMillis() * 3);
                } finally {
                    postgresLink.addRoundTrip(Duration.ZERO);
                }
                return victim.name() + " -> postgres";
            }
            case REDIS_LINK_DELAY -> {
                redisLinks.forEach(link -> link.addRoundTrip(settings.lease()));
                try {
                    Thread.sleep(settings.lease().toMillis() * 3);
                } finally {
                    redisLinks.forEach(link -> link.addRoundTrip(Duration.ZERO));
                }
                return instances.get(0).name() + " -> redis cluster";
            }
            case INSTANCE_PAUSE -> {
                ExampleInstance victim = instances.get(random.nextInt(instances.size()));
                victim.pause();
                Thread.sleep(settings.lease().toMillis() * 3);
                victim.resume();
                return victim.name();
            }
            case HOLDER_PAUSE -> {
                ExampleInstance victim = instances.get(random.nextInt(instances.size()));
                List<String> accounts = List.copyOf(attempted.keySet());
                String account = accounts.get(random.nextInt(accounts.size()));
                String answer = clients.deposit(victim, account, settings.lease().toMillis() * 3, attempted, acknowledged);
                return victim.name() + ", " + account + ": " + answer;
            }
            default -> throw new IllegalArgumentException("unknown fault " + fault);
        }
    }

    private void stop() {
        for (ExampleInstance instance : instances) {
            try {
                instance.close();
            } catch (Exception e) {
                System.out.printf("could not stop %s: %s%n", instance.name(), e);
            }
        }
        if (postgresLink != null) {
            postgresLink.close();
        }
        redisLinks.forEach(DelayProxy::close);
        if (postgres != null) {
            postgres.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

}
