package io.fenceguard.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The ledger's HTTP contract, driven against a running jar: accounts, concurrent deposits, a deposit
 * paused past its lease while another takes over, the audit trail, and bad input of every kind.
 * Invariant checked at the end: balance = initial + the amounts of the deposits that answered 200,
 * and audit tokens never decrease in insertion order.
 */
abstract class LedgerContract {

    /** Arguments every run gets: short leases so a pause can outlast one, chaos on. */
    static final List<String> COMMON = List.of("--spring.profiles.active=demo", "--example.chaos.enabled=true", "--fenceguard.lease.lease-time=2s",
            "--fenceguard.redis.lock-delay=300ms", "--fenceguard.lease.default-wait=20s");

    /** The demonstration signing key (application-demo.properties), to sign like a client of the demo. */
    static final String DEMO_KEY = "ZmVuY2VndWFyZC1leGFtcGxlLWtleS1kby1ub3QtdXNlLWluLXByb2R1Y3Rpb24=";

    private final List<Long> applied = new ArrayList<>();
    private long staleToken;

    /** Runs the contract on a new account and returns its id. */
    String runContract(RunningJar app) throws Exception {
        String account = "acc-" + UUID.randomUUID().toString().substring(0, 8);
        HttpResponse<String> created = app.send("PUT", "/accounts/" + account, "{\"balance\":1000}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(app.send("PUT", "/accounts/" + account, "{\"balance\":1000}").statusCode()).isEqualTo(200);
        HttpResponse<String> read = app.send("GET", "/accounts/" + account, null);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(((Number) JsonPath.read(read.body(), "$.balance")).longValue()).isEqualTo(1000L);
        assertThat((String) JsonPath.read(read.body(), "$.id")).isEqualTo(account);

        concurrentDeposits(app, account);
        pausedDepositIsFencedOut(app, account);
        badInputChangesNothing(app, account);

        operationsViewShowsLeasesAndRejections(app);
        long expected = 1000 + applied.stream().mapToLong(Long::longValue).sum();
        HttpResponse<String> end = app.send("GET", "/accounts/" + account, null);
        assertThat(((Number) JsonPath.read(end.body(), "$.balance")).longValue()).isEqualTo(expected);
        List<Number> tokens = JsonPath.read(app.send("GET", "/audit/" + account, null).body(), "$[*].token");
        List<Number> amounts = JsonPath.read(app.send("GET", "/audit/" + account, null).body(), "$[*].amount");
        assertThat(amounts.stream().mapToLong(Number::longValue).sum()).isEqualTo(expected - 1000);
        assertThat(tokens).hasSize(applied.size());
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i).longValue()).as("audit token %d", i).isGreaterThanOrEqualTo(tokens.get(i - 1).longValue());
        }
        return account;
    }

    private void concurrentDeposits(RunningJar app, String account) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<long[]>> results = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            long amount = ThreadLocalRandom.current().nextLong(1, 500);
            results.add(pool.submit(() -> {
                HttpResponse<String> r = app.send("POST", "/accounts/" + account + "/deposits",
                        "{\"amount\":" + amount + "}");
                return new long[] {r.statusCode(), amount};
            }));
        }
        for (Future<long[]> result : results) {
            long[] outcome = result.get();
            assertThat(outcome[0]).as("concurrent deposit status").isEqualTo(200L);
            applied.add(outcome[1]);
        }
        pool.shutdown();
    }

    private void pausedDepositIsFencedOut(RunningJar app, String account) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(1);
        Future<HttpResponse<String>> paused = pool.submit(() -> app.send("POST", "/accounts/" + account + "/deposits",
                "{\"amount\":7,\"pauseMs\":5000}"));
        Thread.sleep(800);   // the paused deposit holds the lease and has read the balance
        HttpResponse<String> takeover = app.send("POST", "/accounts/" + account + "/deposits", "{\"amount\":11}");
        assertThat(takeover.statusCode()).as(takeover.body()).isEqualTo(200);
        applied.add(11L);
        HttpResponse<String> stale = paused.get();
        assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
        assertThat(stale.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(stale.body()).contains("account:" + account);
        long takeoverToken = ((Number) JsonPath.read(takeover.body(), "$.token")).longValue();
        long staleToken = ((Number) JsonPath.read(stale.body(), "$.token")).longValue();
        assertThat(takeoverToken).isGreaterThan(staleToken);
        this.staleToken = staleToken;
        pool.shutdown();
    }

    private void badInputChangesNothing(RunningJar app, String account) throws Exception {
        String before = app.send("GET", "/accounts/" + account, null).body();
        String auditBefore = app.send("GET", "/audit/" + account, null).body();
        String deposits = "/accounts/" + account + "/deposits";
        expectProblem(app.send("GET", "/accounts/no-such-account", null), 404);
        expectProblem(app.send("POST", "/accounts/no-such-account/deposits", "{\"amount\":5}"), 404);
        expectProblem(app.send("GET", "/audit/no-such-account", null), 404);
        expectProblem(app.send("POST", deposits, "{\"amount\":-5}"), 400);
        expectProblem(app.send("POST", deposits, "{\"amount\":0}"), 400);
        expectProblem(app.send("POST", deposits, "{}"), 400);
        expectProblem(app.send("POST", deposits, "{\"amount\":1.5}"), 400);
        expectProblem(app.send("POST", deposits, "{\"amount\":99999999999999999999}"), 400);
        expectProblem(app.send("POST", deposits, "{\"amount\":\"ten\"}"), 400);
        expectProblem(app.send("POST", deposits, "{\"amount\":5"), 400);
        expectProblem(app.send("POST", deposits, "not json at all"), 400);
        expectProblem(app.send("POST", deposits, "{\"amount\":5,\"pauseMs\":-1}"), 400);
        expectProblem(app.send("POST", deposits, "{\"amount\":5,\"pauseMs\":99999999}"), 400);
        expectProblem(app.send("POST", deposits, "{\"amount\":" + Long.MAX_VALUE + "}"), 422);
        expectProblem(app.send("POST", deposits, "{\"amount\":5,\"pad\":\"" + "x".repeat(1_000_000) + "\"}"), 413);
        expectProblem(app.send("POST", "/accounts/bad%7Bid%7D/deposits", "{\"amount\":5}"), 400);
        expectProblem(app.send("PUT", "/accounts/" + "x".repeat(65), "{\"balance\":5}"), 400);
        expectProblem(app.send("PUT", "/accounts/" + account, "{\"balance\":-1}"), 400);
        expectProblem(app.send("POST", "/audit/" + account, "{\"amount\":5,\"balance\":5}"), 428);
        expectProblem(app.send("POST", "/audit/" + account, "{\"amount\":5,\"balance\":5}",
                new String[] {"Fencing-Token", "v1;r=account:" + account + ";t=99999999999999999999"}), 400);
        expectProblem(app.send("POST", "/audit/" + account, "{\"amount\":5,\"balance\":5}",
                new String[] {"Fencing-Token", "v1;r=account:" + account + ";t=9223372036854775807"}), 403);
        // A compact signed header is refused where whole requests must be signed.
        expectProblem(app.send("POST", "/audit/" + account, "{\"amount\":5,\"balance\":5}",
                new String[] {"Fencing-Token", signedHeader("account:" + account, staleToken)}), 403);
        // A correctly request-signed call with the paused holder's older token: refused by the HTTP fence.
        String auditBody = "{\"amount\":5,\"balance\":5}";
        HttpResponse<String> staleAudit = app.send("POST", "/audit/" + account, auditBody,
                requestSigned(app, "/audit/" + account, auditBody, "account:" + account, staleToken));
        expectProblem(staleAudit, 409);
        assertThat(staleAudit.body()).contains(String.valueOf(staleToken));
        assertThat(app.send("GET", "/accounts/" + account, null).body()).isEqualTo(before);
        assertThat(app.send("GET", "/audit/" + account, null).body()).isEqualTo(auditBefore);
    }

    /** The headers of a request-signed POST (RFC 9421) under the demonstration key. */
    static String[] requestSigned(RunningJar app, String path, String body, String resource, long token) {
        io.fenceguard.admission.SigningKeys demo = io.fenceguard.admission.SigningKeys.of(java.util.Map.of("example-1",
                java.util.Base64.getDecoder().decode(DEMO_KEY)), "example-1");
        java.util.Map<String, String> headers = io.fenceguard.admission.RequestSignatures.of(demo, "Fencing-Token").sign("POST",
                java.net.URI.create("http://127.0.0.1:" + app.port() + path), "v1;r=" + resource + ";t=" + token,
                body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return headers.entrySet().stream().flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue()))
                .toArray(String[]::new);
    }

    static String signedHeader(String resource, long token) throws Exception {
        String unsigned = "v1;r=" + resource + ";t=" + token + ";k=example-1";
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec(java.util.Base64.getDecoder().decode(DEMO_KEY), "HmacSHA256"));
        byte[] signature = mac.doFinal(unsigned.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return unsigned + ";s=" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(signature);
    }

    /** Health, metrics and the guard endpoint tell what happened. */
    void operationsViewShowsLeasesAndRejections(RunningJar app) throws Exception {
        String health = app.send("GET", "/actuator/health", null).body();
        assertThat((String) JsonPath.read(health, "$.components.fenceguard.status")).isEqualTo("UP");
        // the runs pause through the chaos wrapper; the Redis store's breaker still shows through it
        assertThat((String) JsonPath.read(health, "$.components.fenceguard.details.circuitBreaker")).isEqualTo("CLOSED");
        assertThat((String) JsonPath.read(health, "$.components.fenceguard.details.store")).contains("chaos");
        assertThat((String) JsonPath.read(health, "$.components.redis.status")).isEqualTo("UP");
        String guard = app.send("GET", "/actuator/fenceguard", null).body();
        List<String> layers = JsonPath.read(guard, "$.recentRejections[*].layer");
        assertThat(layers).contains("http", "jdbc");
        String acquired = app.send("GET", "/actuator/metrics/fenceguard.lease.acquire", null).body();
        assertThat(((Number) JsonPath.read(acquired, "$.measurements[0].value")).longValue()).isPositive();
        String stale = app.send("GET", "/actuator/metrics/example.stale.rejections", null).body();
        assertThat(((Number) JsonPath.read(stale, "$.measurements[0].value")).doubleValue()).isPositive();
    }

    private static void expectProblem(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as("%s %s -> %s", response.request().method(), response.request().uri(),
                response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).as("content type of %s", response.body())
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(response.body()).doesNotContain("at io.").doesNotContain("Exception:");
    }
}
