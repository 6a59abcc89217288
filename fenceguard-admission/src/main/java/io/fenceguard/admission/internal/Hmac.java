package io.fenceguard.admission.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HMAC-SHA256 with unpadded base64url output, compared in constant time. */
public final class Hmac {

    private static final String ALGORITHM = "HmacSHA256";
    private final SecretKeySpec key;

    private Hmac(byte[] secret) {
        this.key = new SecretKeySpec(secret.clone(), ALGORITHM);
    }

    public static Hmac sha256(byte[] secret) {
        return new Hmac(secret);
    }

    public boolean hasSecret(byte[] secret) {
        return MessageDigest.isEqual(key.getEncoded(), secret);
    }

    public String sign(String message) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(mac(message));
    }

    public boolean verify(String message, String signature) {
        // Comparing the canonical text also refuses variants that decode to the same bytes.
        return MessageDigest.isEqual(sign(message).getBytes(StandardCharsets.US_ASCII),
                signature.getBytes(StandardCharsets.US_ASCII));
    }

    /** The raw MAC of {@code message} (UTF-8). */
    public byte[] mac(String message) {
        try {
            // Mac instances are not thread-safe and cheap to create next to the cost of a request.
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
