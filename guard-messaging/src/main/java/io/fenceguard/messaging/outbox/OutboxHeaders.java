package io.fenceguard.messaging.outbox;

import io.fenceguard.messaging.MessageHeaders;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/** The application's headers of an outbox row, form-encoded in one column ({@code name=value&...}). */
final class OutboxHeaders {

    private OutboxHeaders() {
    }

    static String encode(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        StringJoiner joined = new StringJoiner("&");
        headers.forEach((name, value) -> {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("an outbox message's header names are not blank, got " + headers.keySet());
            }
            if (value == null) {
                throw new IllegalArgumentException("outbox header '" + name + "' has no value");
            }
            if (name.equalsIgnoreCase(MessageHeaders.FENCE) || name.equalsIgnoreCase(MessageHeaders.IDEMPOTENCY_KEY)) {
                throw new IllegalArgumentException("outbox header '" + name + "' is the relay's own: it sends the row's"
                        + " fence and key in it");
            }
            joined.add(URLEncoder.encode(name, StandardCharsets.UTF_8) + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
        });
        return joined.toString();
    }

    static Map<String, String> decode(String encoded) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return headers;
        }
        for (String pair : encoded.split("&")) {
            int eq = pair.indexOf('=');
            headers.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return headers;
    }
}
