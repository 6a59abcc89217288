package io.fenceguard.admission;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The {@value #HEADER} header as both HTTP filters (servlet and WebFlux) read it: its name, its form, and what
 * binds a key to its request, so that instances of either stack sharing an {@link IdempotencyStore} agree.
 */
public final class IdempotencyKeys {

    /** The request header naming a request's idempotency key. */
    public static final String HEADER = "Idempotency-Key";
    /** Set on a response answered from the first response to its idempotency key. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /** The longest key accepted. */
    public static final int MAX_LENGTH = 200;
    /** The detail of the refusal of a malformed key (400). */
    public static final String FORM = "an " + HEADER + " is 1 to " + MAX_LENGTH + " visible ASCII characters";

    private IdempotencyKeys() {
    }

    /** Whether {@code key} is 1 to {@value #MAX_LENGTH} visible ASCII characters. */
    public static boolean wellFormed(String key) {
        return key != null && !key.isEmpty() && key.length() <= MAX_LENGTH
                && key.chars().allMatch(c -> c > 0x20 && c < 0x7f);
    }

    /**
     * What binds a key to its request: the SHA-256 of method, path (as the application maps it), raw query
     * ({@code null}: none) and body, in Base64.
     */
    public static String fingerprint(String method, String path, String rawQuery, byte[] body) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((method + " " + path + (rawQuery == null ? "" : "?" + rawQuery) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            sha.update(body);
            return Base64.getEncoder().encodeToString(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
