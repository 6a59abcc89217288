package io.fenceguard.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.RedisEndpoint;
import io.fenceguard.test.support.TestServers;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * kill -9 of the service under concurrent deposits, a few times: after every restart, once the relay
 * has sent what the outbox holds, every account's balance is its initial balance plus the sum of its
 * audit entries, each audit entry is a deposit that was sent (none twice), every acknowledged deposit
 * has its entry, and the entries, in order, add up to their recorded balances.
 */
class CrashRecoveryIT {

    private static final int ACCOUNTS = 6;
    private static final int CLIENTS = 8;
    private static final int CYCLES = 3;
    private static final long INITIAL = 1_000;

    private final Map<String, Set<Long>> attempted = new ConcurrentHashMap<>();
    private final Map<String, Set<Long>> acknowledged = new ConcurrentHashMap<>();
    private final AtomicLong nextAmount = new AtomicLong(1);
    private RunningJar current;

    @Test
    void balanceIsInitialPlusAuditAfterEveryKill() throws Exception {
        JdbcEndpoint server = TestServers.postgres();
        String database = "fgcrash_" + UUID.randomUUID().toString().substring(0, 8);
        execute(server, "CREATE DATABASE " + database);
        try {
            RedisEndpoint redis = TestServers.redis();
            List<String> args = new ArrayList<>(List.of("--spring.profiles.active=demo",
                    "--fenceguard.lease.lease-time=2s", "--fenceguard.redis.lock-delay=300ms",
                    "--fenceguard.lease.default-wait=20s", "--example.audit.relay-interval=300ms"));
            args.addAll(RealServersIT.serverArgs(server, database, redis));
            List<String> accounts = new ArrayList<>();
            long acknowledgedTotal = 0;
            for (int cycle = 0; cycle <= CYCLES; cycle++) {
                RunningJar app = RunningJar.start("crash-" + cycle, args);
                current = app;
                if (cycle == 0) {
                    for (int i = 0; i < ACCOUNTS; i++) {
                        String account = "crash-" + i;
                        HttpResponse<String> created = app.send("PUT", "/accounts/" + account, "{\"balance\":" + INITIAL + "}");
                        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
                        accounts.add(account);
                        attempted.put(account, ConcurrentHashMap.newKeySet());
                        acknowledged.put(account, ConcurrentHashMap.newKeySet());
                    }
                } else {
                    checkAfterDrain(app, server, database, accounts, cycle);
                }
                if (cycle == CYCLES) {
                    app.close();
                    break;
                }
                long before = acknowledged.values().stream().mapToLong(Set::size).sum();
                AtomicBoolean running = new AtomicBoolean(true);
                List<Thread> clients = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    Thread client = new Thread(() -> deposit(app, accounts, running), "client-" + c);
                    client.start();
                    clients.add(client);
                }
                Thread.sleep(ThreadLocalRandom.current().nextLong(3_000, 6_000));
                app.kill();
                running.set(false);
                for (Thread client : clients) {
                    client.join(Duration.ofSeconds(70).toMillis());
                }
                long now = acknowledged.values().stream().mapToLong(Set::size).sum();
                System.out.printf("cycle %d: %d deposits acknowledged before kill -9, %d sent in all%n", cycle,
                        now - before, attempted.values().stream().mapToLong(Set::size).sum());
                assertThat(now).as("deposits acknowledged in cycle %d", cycle).isGreaterThan(before);
                acknowledgedTotal = now;
            }
            assertThat(acknowledgedTotal).isGreaterThan(0);
        } finally {
            // A failed check leaves the last instance running: stop it, so that its connections do not keep the
            // database, and never let the clean-up hide the failure.
            if (current != null) {
                current.close();
            }
            try {
                execute(server, "DROP DATABASE " + database + " WITH (FORCE)");
            } catch (Exception e) {
                System.out.printf("could not drop %s: %s%n", database, e.getMessage());
            }
        }
    }

    private void deposit(RunningJar app, List<String> accounts, AtomicBoolean running) {
        while (running.get()) {
            String account = accounts.get(ThreadLocalRandom.current().nextInt(accounts.size()));
            long amount = nextAmount.getAndIncrement();
            attempted.get(account).add(amount);
            try {
                HttpResponse<String> response = app.send("POST", "/accounts/" + account + "/deposits",
                        "{\"amount\":" + amount + "}");
                if (response.statusCode() == 200) {
                    acknowledged.get(account).add(amount);
                }
            } catch (Exception killed) {
                return;   // the process is gone: this deposit's outcome is unknown
            }
        }
    }

    private void checkAfterDrain(RunningJar app, JdbcEndpoint server, String database, List<String> accounts, int cycle)
            throws Exception {
        // The audit endpoint records idempotency keys in its handler's transaction
        // (fenceguard.http.store.join-handler-transaction): a call cut by kill -9 leaves no claim behind, and
        // the relay sends what is left within a few rounds.
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        long pending = pendingAudits(server, database);
        System.out.printf("restart %d: %d audit calls in the outbox at start%n", cycle, pending);
        while ((pending = pendingAudits(server, database)) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        if (pending > 0) {
            // Say why: the rows left and what the relay logged about them.
            System.out.printf("restart %d: left in the outbox: %s%n", cycle, pendingRows(server, database));
            app.logLines().stream().filter(line -> line.contains(" WARN ") || line.contains(" ERROR "))
                    .forEach(System.out::println);
        }
        assertThat(pending).as("audit calls left in the outbox after restart %d", cycle).isZero();
        for (String account : accounts) {
            HttpResponse<String> read = app.send("GET", "/accounts/" + account, null);
            long balance = ((Number) JsonPath.read(read.body(), "$.balance")).longValue();
            String trail = app.send("GET", "/audit/" + account, null).body();
            List<Number> amounts = JsonPath.read(trail, "$[*].amount");
            List<Number> balances = JsonPath.read(trail, "$[*].balance");
            Set<Long> audited = new HashSet<>();
            long running = INITIAL;
            for (int i = 0; i < amounts.size(); i++) {
                long amount = amounts.get(i).longValue();
                assertThat(audited.add(amount)).as("%s: deposit %d audited twice (restart %d)", account, amount, cycle)
                        .isTrue();
                running += amount;
                assertThat(balances.get(i).longValue()).as("%s: audit entry %d's balance", account, i).isEqualTo(running);
            }
            assertThat(balance).as("%s: balance = initial + Σ audit after restart %d", account, cycle)
                    .isEqualTo(INITIAL + audited.stream().mapToLong(Long::longValue).sum());
            assertThat(attempted.get(account)).as("%s: audited deposits were sent", account).containsAll(audited);
            assertThat(audited).as("%s: acknowledged deposits are audited (none lost)", account)
                    .containsAll(acknowledged.get(account));
        }
        System.out.printf("restart %d: %d accounts consistent, %d deposits acknowledged so far%n", cycle,
                accounts.size(), acknowledged.values().stream().mapToLong(Set::size).sum());
    }

    private static long pendingAudits(JdbcEndpoint server, String database) throws Exception {
        try (Connection c = java.sql.DriverManager.getConnection(RealServersIT.withDatabase(server.url(), database),
                server.user(), server.password()); Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT COUNT(*) FROM audit_outbox WHERE sent = 0")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static List<String> pendingRows(JdbcEndpoint server, String database) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = java.sql.DriverManager.getConnection(RealServersIT.withDatabase(server.url(), database),
                server.user(), server.password()); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT id, account_id, amount, balance FROM audit_outbox WHERE sent = 0")) {
            while (r.next()) {
                rows.add(r.getString(1) + " " + r.getString(2) + " amount " + r.getLong(3) + " balance " + r.getLong(4));
            }
        }
        return rows;
    }

    private static void execute(JdbcEndpoint server, String sql) throws Exception {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
