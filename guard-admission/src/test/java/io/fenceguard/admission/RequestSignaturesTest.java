package io.fenceguard.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * The wire form of a request signature, checked against a signature base and HMAC computed here independently (RFC
 * 9421's lines, the JDK's HmacSHA256), and its verification on several threads at once under the same key.
 */
class RequestSignaturesTest {

    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    private static final SigningKeys KEYS = SigningKeys.of(Map.of("k1", SECRET), "k1");
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochSecond(1_763_906_400L), ZoneOffset.UTC);
    private static final URI TARGET = URI.create("https://ledger.internal/audit/42?page=2");
    private static final String FENCE = "v1;r=account:42;t=7";

    @Test
    void theSignatureIsTheHmacOfTheRfc9421SignatureBase() throws Exception {
        RequestSignatures signatures = RequestSignatures.of(KEYS, "X-Fence", CLOCK, Duration.ofSeconds(30));
        byte[] body = "{\"amount\":5}".getBytes(StandardCharsets.UTF_8);
        Map<String, String> headers = signatures.sign("put", TARGET, FENCE, body);

        String input = headers.get(RequestSignatures.SIGNATURE_INPUT);
        assertThat(input).startsWith("fg=(\"@method\" \"@target-uri\" \"x-fence\" \"content-digest\");created=1763906400;"
                + "expires=1763906430;keyid=\"k1\";nonce=\"").endsWith("\";alg=\"hmac-sha256\"");
        String base = "\"@method\": PUT\n"
                + "\"@target-uri\": https://ledger.internal/audit/42?page=2\n"
                + "\"x-fence\": " + FENCE + "\n"
                + "\"content-digest\": " + RequestSignatures.contentDigest(body) + "\n"
                + "\"@signature-params\": " + input.substring("fg=".length());
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
        String expected = "fg=:" + Base64.getEncoder().encodeToString(mac.doFinal(base.getBytes(StandardCharsets.UTF_8)))
                + ":";
        assertThat(headers.get(RequestSignatures.SIGNATURE)).isEqualTo(expected);

        RequestSignatures.Verified verified = signatures.verify(request("PUT", TARGET, headers, body), FENCE);
        assertThat(verified.keyId()).isEqualTo("k1");
        assertThat(verified.created()).isEqualTo(Instant.ofEpochSecond(1_763_906_400L));
        assertThat(verified.expires()).isEqualTo(Instant.ofEpochSecond(1_763_906_430L).plus(RequestSignatures.CLOCK_SKEW));
    }

    @Test
    void aBodysContentDigestIsItsSha256EachTime() throws Exception {
        byte[] first = "{\"amount\":5}".getBytes(StandardCharsets.UTF_8);
        byte[] second = new byte[10_000];
        java.util.Arrays.fill(second, (byte) 7);
        for (int i = 0; i < 3; i++) {
            for (byte[] body : List.of(first, second, new byte[0])) {
                String expected = "sha-256=:" + Base64.getEncoder().encodeToString(
                        java.security.MessageDigest.getInstance("SHA-256").digest(body)) + ":";
                assertThat(RequestSignatures.contentDigest(body)).isEqualTo(expected);
            }
        }
    }

    @Test
    void anotherUriMethodOrFencingValueDoesNotVerify() {
        RequestSignatures signatures = RequestSignatures.of(KEYS, "X-Fence", CLOCK, Duration.ofSeconds(30));
        Map<String, String> headers = signatures.sign("PUT", TARGET, FENCE, new byte[0]);
        assertThatThrownBy(() -> signatures.verify(request("PUT", URI.create("https://ledger.internal/audit/43?page=2"),
                headers, new byte[0]), FENCE)).isInstanceOf(FenceHeaderException.class).hasMessageContaining("does not match");
        assertThatThrownBy(() -> signatures.verify(request("POST", TARGET, headers, new byte[0]), FENCE))
                .isInstanceOf(FenceHeaderException.class).hasMessageContaining("does not match");
        assertThatThrownBy(() -> signatures.verify(request("PUT", TARGET, headers, new byte[0]), "v1;r=account:42;t=8"))
                .isInstanceOf(FenceHeaderException.class).hasMessageContaining("does not match");
    }

    @Test
    void signaturesMadeAndVerifiedOnManyThreadsAtOnceAgree() throws Exception {
        RequestSignatures signatures = RequestSignatures.of(KEYS, "X-Fence", CLOCK, Duration.ofSeconds(30));
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> results = new java.util.ArrayList<>();
            for (int i = 0; i < 400; i++) {
                String fence = "v1;r=account:42;t=" + (i + 1);
                results.add(threads.submit(() -> {
                    Map<String, String> headers = signatures.sign("PUT", TARGET, fence, new byte[0]);
                    signatures.verify(request("PUT", TARGET, headers, new byte[0]), fence);
                    // and a wrong value still refused on the same thread's MAC afterwards
                    try {
                        signatures.verify(request("PUT", TARGET, headers, new byte[0]), fence + "0");
                        return false;
                    } catch (FenceHeaderException e) {
                        return true;
                    }
                }));
            }
            for (Future<Boolean> result : results) {
                assertThat(result.get()).isTrue();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static InboundRequest request(String method, URI target, Map<String, String> headers, byte[] body) {
        Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        byName.putAll(headers);
        return new InboundRequest(method, target.getPath(), target,
                name -> byName.containsKey(name) ? List.of(byName.get(name)) : List.of(), body);
    }
}
