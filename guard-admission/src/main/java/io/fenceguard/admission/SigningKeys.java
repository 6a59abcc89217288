package io.fenceguard.admission;

import io.fenceguard.admission.internal.Hmac;
import io.fenceguard.core.Fence;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The HMAC keys of fencing headers, by key id. Signing uses the active key; verification accepts
 * every listed key, so a key is rotated by adding the new one everywhere, then making it active on
 * the signers, then removing the old one. Signing keeps a caller without a key from forging a huge
 * token that would lock every legitimate holder out of the resource.
 */
public final class SigningKeys {

    /** Shorter keys are refused: HMAC-SHA256 keys are meant to have at least 256 bits. */
    public static final int MIN_KEY_BYTES = 32;

    private final Map<String, Hmac> keys;
    private final String activeKeyId;
    private final boolean required;

    private SigningKeys(Map<String, Hmac> keys, String activeKeyId, boolean required) {
        this.keys = keys;
        this.activeKeyId = activeKeyId;
        this.required = required;
    }

    /**
     * Keys by id; {@code activeKeyId} signs (may be {@code null} on a server that only verifies);
     * unsigned headers are refused.
     */
    public static SigningKeys of(Map<String, byte[]> secrets, String activeKeyId) {
        Objects.requireNonNull(secrets, "secrets");
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("at least one signing key is needed; use SigningKeys.none() to accept "
                    + "unsigned headers");
        }
        Map<String, Hmac> keys = new LinkedHashMap<>();
        secrets.forEach((id, secret) -> {
            FenceHeader.requireKeyId(id);
            if (secret == null || secret.length < MIN_KEY_BYTES) {
                throw new IllegalArgumentException("signing key '" + id + "' has "
                        + (secret == null ? 0 : secret.length) + " bytes; at least " + MIN_KEY_BYTES + " are needed");
            }
            keys.put(id, Hmac.sha256(secret));
        });
        if (activeKeyId != null && !keys.containsKey(activeKeyId)) {
            throw new IllegalArgumentException("the active signing key '" + activeKeyId + "' is not among the keys "
                    + keys.keySet());
        }
        return new SigningKeys(Map.copyOf(keys), activeKeyId, true);
    }

    /**
     * These keys, but unsigned headers are admitted too (signed ones are still verified): for the time
     * in which callers move to signing. Only for trusted networks.
     */
    public SigningKeys acceptingUnsigned() {
        return new SigningKeys(keys, activeKeyId, false);
    }

    /** No keys: headers go out unsigned and unsigned headers are admitted. Only for trusted networks. */
    public static SigningKeys none() {
        return new SigningKeys(Map.of(), null, false);
    }

    /** Whether unsigned headers are refused. */
    public boolean required() {
        return required;
    }

    public Optional<String> activeKeyId() {
        return Optional.ofNullable(activeKeyId);
    }

    /** Whether there are no keys at all ({@link #none()}). */
    public boolean isEmpty() {
        return keys.isEmpty();
    }

    /** The header of {@code fence}, signed with the active key when there is one. */
    public FenceHeader header(Fence fence) {
        if (activeKeyId == null) {
            return FenceHeader.of(fence);
        }
        String signature = keys.get(activeKeyId).sign(FenceHeader.signedPart(fence, activeKeyId));
        return FenceHeader.signed(fence, activeKeyId, signature);
    }

    /**
     * Checks that {@code header} may be admitted as authentic.
     *
     * @throws FenceHeaderException (untrusted) when it is unsigned but must be signed, names an unknown
     *     key, or its signature does not match
     */
    public void verify(FenceHeader header) {
        if (!header.isSigned()) {
            if (required) {
                throw FenceHeaderException.untrusted("the fencing header must be signed");
            }
            return;
        }
        String keyId = header.keyId().orElseThrow();
        Hmac key = keys.get(keyId);
        if (key == null) {
            throw FenceHeaderException.untrusted("the fencing header is signed with unknown key '" + keyId + "'");
        }
        if (!key.verify(header.signedPart(), header.signature().orElseThrow())) {
            throw FenceHeaderException.untrusted("the fencing header's signature does not match");
        }
    }

    /** The key {@code keyId}, or {@code null} when it is not listed. */
    Hmac hmac(String keyId) {
        return keys.get(keyId);
    }

    /** Whether {@code secret} is one of these keys (to keep other credentials apart from them). */
    boolean containsSecret(byte[] secret) {
        return keys.values().stream().anyMatch(key -> key.hasSecret(secret));
    }

    @Override
    public String toString() {
        return "SigningKeys[" + keys.keySet() + ", active " + activeKeyId + ", required " + required + "]";
    }
}
