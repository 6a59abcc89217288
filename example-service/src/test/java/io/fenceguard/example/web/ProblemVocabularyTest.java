package io.fenceguard.example.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.RequestSignatures;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The example on real PostgreSQL and Redis, in this JVM: every 4xx is application/problem+json with a
 * {@code urn:fenceguard:} type, including Tomcat's own rejections and Spring MVC's; JSON numbers are
 * strict; the audit hop is request-signed, so a captured audit call is not admitted twice.
 */
class ProblemVocabularyTest {

    static final String DEMO_KEY = "ZmVuY2VndWFyZC1leGFtcGxlLWtleS1kby1ub3QtdXNlLWluLXByb2R1Y3Rpb24=";
    static ExampleOnTestServers example;
    static int port;

    @BeforeAll
    static void start() {
        // The test presents tokens of its own minted on the clock: the ledger's leases take the same mode.
        example = ExampleOnTestServers.start("fgex", "--fenceguard.redis.token-epoch=clock");
        port = example.port();
    }

    @AfterAll
    static void stop() {
        if (example != null) {
            example.close();
        }
    }

    /** One raw HTTP/1.1 exchange, so that the request reaches Tomcat exactly as written. */
    static String[] raw(String requestLine, String... headers) throws IOException {
        StringBuilder request = new StringBuilder(requestLine).append("\r\nHost: 127.0.0.1:").append(port)
                .append("\r\nConnection: close\r\n");
        for (String header : headers) {
            request.append(header).append("\r\n");
        }
        request.append("\r\n");
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int end = response.indexOf("\r\n\r\n");
            return new String[] {response.substring(0, Math.max(0, end)), end < 0 ? "" : response.substring(end + 4)};
        }
    }

    static void assertProblem(String[] response, int status, String type) {
        assertThat(response[0]).as(response[0] + "\n" + response[1]).startsWith("HTTP/1.1 " + status);
        assertThat(response[0].toLowerCase()).contains("content-type: application/problem+json");
        assertThat(response[1]).contains("\"type\":\"urn:fenceguard:" + type + "\"").doesNotContain("<html");
    }

    static HttpResponse<String> send(String method, String path, String json, String... headers) throws Exception {
        return example.send(method, path, json, headers);
    }

    static void assertProblem(HttpResponse<String> response, int status, String type) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(response.body()).as(response.body()).containsPattern("\"type\"\\s*:\\s*\"urn:fenceguard:" + type + "\"");
    }

    @Test
    void tomcatsOwnRejectionsAreProblemJson() throws Exception {
        assertProblem(raw("GET /accounts/a%2Fb HTTP/1.1"), 400, "bad-request");
        assertProblem(raw("GET /accounts/a%00b HTTP/1.1"), 400, "bad-request");
        assertProblem(raw("GET /accounts/" + "x".repeat(10_000) + " HTTP/1.1"), 400, "bad-request");
        assertProblem(raw("GET /accounts/a HTTP/1.1", "X-Big: " + "y".repeat(10_240)), 400, "bad-request");
    }

    @Test
    void springsOwn4xxUseTheSameVocabulary() throws Exception {
        send("PUT", "/accounts/v1", "{\"balance\":10}");
        assertProblem(send("POST", "/accounts/v1/deposits", "{\"amount\":5"), 400, "bad-request");
        assertProblem(send("POST", "/accounts/v1/deposits", "not json"), 400, "bad-request");
        assertProblem(send("POST", "/accounts/v1/deposits", "{\"amount\":\"5\"}"), 400, "bad-request");
        assertProblem(send("PUT", "/accounts/v1", "{\"balance\":\"5\"}"), 400, "bad-request");
        assertProblem(send("DELETE", "/accounts/v1", null), 405, "method-not-allowed");
        assertProblem(send("GET", "/no/such/path", null), 404, "not-found");
        assertThat(send("GET", "/accounts/v1", null).body()).contains("\"balance\":10");
    }

    @Test
    void aDepositSignsItsAuditCallAndACapturedAuditCallIsNotAdmittedTwice() throws Exception {
        assertThat(send("PUT", "/accounts/s1", "{\"balance\":100}").statusCode()).isEqualTo(201);
        HttpResponse<String> deposit = send("POST", "/accounts/s1/deposits", "{\"amount\":5}");
        assertThat(deposit.statusCode()).as(deposit.body()).isEqualTo(200);
        assertThat(send("GET", "/audit/s1", null).body()).contains("\"amount\":5");

        SigningKeys demo = SigningKeys.of(Map.of("example-1", Base64.getDecoder().decode(DEMO_KEY)), "example-1");
        // the deposit's own token: the lock store granted it, so a call signed with it is admitted once (a token no
        // store granted the account is refused before it could set a mark)
        java.util.regex.Matcher granted = java.util.regex.Pattern.compile("\"token\"\\s*:\\s*(\\d+)").matcher(deposit.body());
        assertThat(granted.find()).as(deposit.body()).isTrue();
        long token = Long.parseLong(granted.group(1));
        String body = "{\"amount\":7,\"balance\":112}";
        URI uri = URI.create("http://127.0.0.1:" + port + "/audit/s1");
        Map<String, String> signed = RequestSignatures.of(demo, "Fencing-Token").sign("POST", uri,
                FenceHeader.of(new Fence(ResourceName.of("account:s1"), FencingToken.of(token))).value(),
                body.getBytes(StandardCharsets.UTF_8));
        String[] headers = signed.entrySet().stream().flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue()))
                .toArray(String[]::new);
        assertThat(send("POST", "/audit/s1", body, headers).statusCode()).isEqualTo(201);
        assertProblem(send("POST", "/audit/s1", body, headers), 403, "replayed-request");
        assertProblem(send("POST", "/audit/s1", "{\"amount\":700,\"balance\":112}", headers), 403, "untrusted-token");
        String compact = demo.header(new Fence(ResourceName.of("account:s1"), FencingToken.of(token))).value();
        assertProblem(send("POST", "/audit/s1", body, "Fencing-Token", compact), 403, "untrusted-token");
        assertThat(send("GET", "/audit/s1", null).body()).containsOnlyOnce("\"amount\":7");
    }
}
