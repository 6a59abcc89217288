package io.fenceguard.http.filter.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

class CachedBodyRequestTest {

    private static final int MAX = 16;

    /** A request whose stream carries {@code body} and whose Content-Length says {@code declared} (-1: none). */
    private static MockHttpServletRequest request(byte[] body, long declared) {
        MockHttpServletRequest request = new MockHttpServletRequest("PUT", "/accounts/1") {
            @Override
            public long getContentLengthLong() {
                return declared;
            }

            @Override
            public int getContentLength() {
                return (int) declared;
            }
        };
        request.setContent(body);
        return request;
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) 'x');
        return b;
    }

    @Test
    void readsTheDeclaredBodyAndServesItAgain() throws IOException {
        byte[] body = "{\"amount\":5}".getBytes(StandardCharsets.UTF_8);
        CachedBodyRequest cached = CachedBodyRequest.read(request(body, body.length), MAX);
        assertThat(cached.body()).isEqualTo(body);
        assertThat(cached.getInputStream().readAllBytes()).isEqualTo(body);
        assertThat(cached.getContentLengthLong()).isEqualTo(body.length);
    }

    @Test
    void readsEmptyAndUndeclaredBodies() throws IOException {
        assertThat(CachedBodyRequest.read(request(new byte[0], 0), MAX).body()).isEmpty();
        assertThat(CachedBodyRequest.read(request(bytes(MAX), -1), MAX).body()).hasSize(MAX);
        assertThat(CachedBodyRequest.read(request(new byte[0], -1), MAX).body()).isEmpty();
    }

    @Test
    void refusesBodiesLongerThanTheLimit() throws IOException {
        assertThat(CachedBodyRequest.read(request(bytes(MAX), MAX), MAX).body()).hasSize(MAX);
        assertThat(CachedBodyRequest.read(request(bytes(MAX + 1), MAX + 1), MAX)).isNull();
        assertThat(CachedBodyRequest.read(request(bytes(MAX + 1), -1), MAX)).isNull();
        // A stream going on past its declared length counts in full, as an undeclared one does.
        assertThat(CachedBodyRequest.read(request(bytes(MAX + 1), 4), MAX)).isNull();
        assertThat(CachedBodyRequest.read(request(bytes(MAX + 1), 0), MAX)).isNull();
        assertThat(CachedBodyRequest.read(request(bytes(MAX), 4), MAX).body()).isEqualTo(bytes(MAX));
        assertThat(CachedBodyRequest.read(request(bytes(1), 0), MAX).body()).isEqualTo(bytes(1));
    }

    @Test
    void keepsWhatArrivedOfAShorterBodyThanDeclared() throws IOException {
        assertThat(CachedBodyRequest.read(request(bytes(3), 8), MAX).body()).isEqualTo(bytes(3));
    }
}
