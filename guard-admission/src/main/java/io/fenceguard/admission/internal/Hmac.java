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
    /**
     * A MAC keyed once, copied for each message: a copy starts from the keyed state, where a new instance
     * would look up its provider and hash the key's pads again on every request. Never used itself; null
     * when the provider's MACs cannot be copied (then each message gets a new one).
     */
    private final Mac keyed;
    /**
     * Each thread's MAC under this key, copied from {@link #keyed} once: {@code doFinal} leaves a MAC keyed as
     * before, so a thread's next message starts from it without the copy (its digests, pads and buffers) every
     * message cost.
     */
    private final ThreadLocal<Mac> perThread = ThreadLocal.withInitial(this::newKeyedMac);

    private Hmac(byte[] secret) {
        this.key = new SecretKeySpec(secret.clone(), ALGORITHM);
        this.keyed = copyable(newMac(key));
    }

    private Mac newKeyedMac() {
        try {
            return keyed == null ? newMac(key) : (Mac) keyed.clone();
        } catch (CloneNotSupportedException e) {
            return newMac(key);
        }
    }

    private static Mac copyable(Mac mac) {
        try {
            mac.clone();
            return mac;
        } catch (CloneNotSupportedException e) {
            return null;
        }
    }

    private static Mac newMac(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
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
        // Mac instances are not thread-safe: each thread has its own.
        return perThread.get().doFinal(message.getBytes(StandardCharsets.UTF_8));
    }
}
