package io.fenceguard.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Issue 38 from outside, on the service's defaults (durable-epoch tokens from a PostgreSQL sequence, Redis leases):
 * requests signed with the service's own key whose tokens were never granted to the account. One a minute of µs
 * ahead is above the highest epoch; one within the highest epoch (another account's) is above what Redis granted
 * the account. Both are refused (403, out of range), and the account's deposits go on being audited at once.
 */
class TokenLockOutIT {

    private static final String AUDIT_BODY = "{\"amount\":1,\"balance\":1}";

    @Test
    void noSignedTokenLocksAnAccountsHoldersOut() throws Exception {
        JdbcEndpoint postgres = TestServers.postgres();
        String database = "fglockout_" + UUID.randomUUID().toString().substring(0, 8);
        execute(postgres, "CREATE DATABASE " + database);
        try {
            List<String> args = new ArrayList<>(List.of("--spring.profiles.active=demo"));
            args.addAll(RealServersIT.serverArgs(postgres, database, TestServers.redis()).stream()
                    .filter(arg -> !arg.startsWith("--fenceguard.redis.token-epoch")).toList());
            try (RunningJar app = RunningJar.start("lockout", args)) {
                run(app);
            }
        } finally {
            execute(postgres, "DROP DATABASE " + database);
        }
    }

    private static void run(RunningJar app) throws Exception {
        String victim = "acc-" + UUID.randomUUID().toString().substring(0, 8);
        String other = "acc-" + UUID.randomUUID().toString().substring(0, 8);
        for (String account : List.of(victim, other)) {
            assertThat(app.send("PUT", "/accounts/" + account, "{\"balance\":100}").statusCode()).isEqualTo(201);
        }
        long victimToken = depositAudited(app, victim);
        long otherToken = depositAudited(app, other);
        assertThat(otherToken >>> 24).as("each account takes an epoch of its own: the other's is higher")
                .isGreaterThan(victimToken >>> 24);

        // 60 s of µs ahead of now: about four epochs beyond the highest; refused, nothing recorded
        long minuteAhead = Instant.now().truncatedTo(ChronoUnit.MICROS).toEpochMilli() * 1_000 + 60_000_000L;
        assertThat(minuteAhead >>> 24).isGreaterThan(otherToken >>> 24);
        HttpResponse<String> ahead = forged(app, victim, minuteAhead);
        assertThat(ahead.statusCode()).as(ahead.body()).isEqualTo(403);
        assertThat(ahead.body()).contains("token-out-of-range");

        // within the highest epoch, but never granted to the victim: refused too, Redis tells what it granted
        long unminted = (otherToken >>> 24 << 24) + 1_000_000;
        HttpResponse<String> notGranted = forged(app, victim, unminted);
        assertThat(notGranted.statusCode()).as(notGranted.body()).isEqualTo(403);
        assertThat(notGranted.body()).contains("token-out-of-range", "the highest token the lock store has granted");

        // the victim's holders go on: each deposit audited at once, the trail without a forged entry
        for (int i = 0; i < 3; i++) {
            depositAudited(app, victim);
        }
        List<Number> tokens = JsonPath.read(app.send("GET", "/audit/" + victim, null).body(), "$[*].token");
        assertThat(tokens).extracting(Number::longValue).hasSize(4).doesNotContain(minuteAhead, unminted)
                .isSorted().allMatch(token -> token >>> 24 == victimToken >>> 24);
    }

    /** A deposit whose audit call was admitted downstream; its token. */
    private static long depositAudited(RunningJar app, String account) throws Exception {
        HttpResponse<String> deposit = app.send("POST", "/accounts/" + account + "/deposits", "{\"amount\":1}");
        assertThat(deposit.statusCode()).as(deposit.body()).isEqualTo(200);
        assertThat((String) JsonPath.read(deposit.body(), "$.audit")).as(deposit.body()).isEqualTo("sent");
        return ((Number) JsonPath.read(deposit.body(), "$.token")).longValue();
    }

    private static HttpResponse<String> forged(RunningJar app, String account, long token) throws Exception {
        return app.send("POST", "/audit/" + account, AUDIT_BODY,
                LedgerContract.requestSigned(app, "/audit/" + account, AUDIT_BODY, "account:" + account, token));
    }

    private static void execute(JdbcEndpoint server, String sql) throws Exception {
        try (Connection c = server.connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
