package io.fenceguard.reactor.webflux;

import java.util.Arrays;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

/**
 * The body of a request the filter reads before its admission (request-signed, or with an idempotency key),
 * gathered into one array as it arrives: sized by Content-Length when sent, at most {@code max} bytes.
 */
final class RequestBody {

    /** Thrown past the limit; no stack trace: an answer, not a fault. */
    static final class TooLarge extends RuntimeException {
        TooLarge() {
            super("body too large", null, false, false);
        }
    }

    private final int max;
    private byte[] bytes;
    private int length;

    RequestBody(long contentLength, int max) {
        this.max = max;
        this.bytes = new byte[(int) Math.min(max, contentLength >= 0 ? contentLength : 8192)];
    }

    RequestBody append(DataBuffer buffer) {
        try {
            int n = buffer.readableByteCount();
            if (n > max - length) {
                throw new TooLarge();
            }
            if (length + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.min(max, Math.max(length + n, 2L * bytes.length)));
            }
            buffer.read(bytes, length, n);
            length += n;
            return this;
        } finally {
            DataBufferUtils.release(buffer);
        }
    }

    byte[] bytes() {
        return length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
    }
}
