package io.fenceguard.admission;

import io.fenceguard.admission.internal.CharClass;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.ResourceName;
import java.util.Objects;
import java.util.Optional;

/**
 * The wire form of a {@link Fence}: the value of the fencing header, optionally signed.
 *
 * <pre>
 * Fencing-Token: v1;r=account:42;t=1745000000000001
 * Fencing-Token: v1;r=account:42;t=1745000000000001;k=2025-06;s=3q2-7w…(43 characters)
 * </pre>
 *
 * Parsing is strict: exactly these fields in this order, no white space, at most {@value #MAX_LENGTH}
 * characters; the resource follows {@link ResourceName}; the token is an unsigned decimal of 1 to 19
 * digits without leading zero that fits in 63 bits; the key id is 1 to 32 characters from
 * {@code A-Z a-z 0-9 . _ -}; the signature is the unpadded base64url HMAC-SHA256 (43 characters) of
 * everything before {@code ;s=}. Signed headers are made by {@link SigningKeys#header}.
 */
public final class FenceHeader {

    public static final String DEFAULT_NAME = "Fencing-Token";
    public static final int MAX_LENGTH = 320;
    static final String VERSION = "v1";

    private final Fence fence;
    private final String keyId;
    private final String signature;

    private FenceHeader(Fence fence, String keyId, String signature) {
        this.fence = Objects.requireNonNull(fence, "fence");
        this.keyId = keyId;
        this.signature = signature;
    }

    /** The unsigned header of {@code fence}. */
    public static FenceHeader of(Fence fence) {
        return new FenceHeader(fence, null, null);
    }

    static FenceHeader signed(Fence fence, String keyId, String signature) {
        requireKeyId(keyId);
        return new FenceHeader(fence, keyId, signature);
    }

    static String requireKeyId(String keyId) {
        if (keyId == null || !CharClass.KEY_ID.matches(keyId, 1, 32)) {
            throw new IllegalArgumentException("a signing key id is 1 to 32 characters from A-Z a-z 0-9 . _ -, got '"
                    + keyId + "'");
        }
        return keyId;
    }

    /** {@code name} when it is a valid header name (1 to 64 characters from A-Z a-z 0-9 -). */
    static String requireHeaderName(String name) {
        if (name == null || !CharClass.HEADER_NAME.matches(name, 1, 64)) {
            throw new IllegalArgumentException("a header name is 1 to 64 characters from A-Z a-z 0-9 -, got '"
                    + name + "'");
        }
        return name;
    }

    /**
     * Parses one header value strictly.
     *
     * @throws FenceHeaderException (malformed) for anything but the documented form
     */
    public static FenceHeader parse(String value) {
        if (value == null || value.isEmpty()) {
            throw FenceHeaderException.malformed("the fencing header is empty");
        }
        if (value.length() > MAX_LENGTH) {
            throw FenceHeaderException.malformed("the fencing header has " + value.length()
                    + " characters; at most " + MAX_LENGTH + " are allowed");
        }
        String[] parts = value.split(";", -1);
        if ((parts.length != 3 && parts.length != 5) || !VERSION.equals(parts[0])) {
            throw FenceHeaderException.malformed("the fencing header is 'v1;r=<resource>;t=<token>' "
                    + "optionally followed by ';k=<key id>;s=<signature>'");
        }
        ResourceName resource;
        try {
            resource = ResourceName.of(field(parts[1], "r="));
        } catch (InvalidResourceNameException e) {
            throw FenceHeaderException.malformed("the fencing header names an invalid resource: " + e.getMessage());
        }
        FencingToken token;
        try {
            token = FencingToken.parse(field(parts[2], "t="));
        } catch (IllegalArgumentException e) {
            throw FenceHeaderException.malformed("the fencing header carries an invalid token: " + e.getMessage());
        }
        Fence fence = new Fence(resource, token);
        if (parts.length == 3) {
            return new FenceHeader(fence, null, null);
        }
        String keyId = field(parts[3], "k=");
        String signature = field(parts[4], "s=");
        if (!CharClass.KEY_ID.matches(keyId, 1, 32)) {
            throw FenceHeaderException.malformed("the key id is 1 to 32 characters from A-Z a-z 0-9 . _ -");
        }
        if (!CharClass.BASE64URL.matches(signature, 43, 43)) {
            throw FenceHeaderException.malformed("the signature is 43 base64url characters without padding");
        }
        return new FenceHeader(fence, keyId, signature);
    }

    private static String field(String part, String prefix) {
        if (!part.startsWith(prefix)) {
            throw FenceHeaderException.malformed("expected field '" + prefix + "…' in the fencing header");
        }
        return part.substring(prefix.length());
    }

    /** The resource and token this header carries. */
    public Fence fence() {
        return fence;
    }

    public boolean isSigned() {
        return signature != null;
    }

    public Optional<String> keyId() {
        return Optional.ofNullable(keyId);
    }

    Optional<String> signature() {
        return Optional.ofNullable(signature);
    }

    /** What the signature covers: the header up to, without, {@code ;s=}. */
    String signedPart() {
        return signedPart(fence, keyId);
    }

    static String signedPart(Fence fence, String keyId) {
        return unsigned(fence) + ";k=" + keyId;
    }

    private static String unsigned(Fence fence) {
        return VERSION + ";r=" + fence.resource().value() + ";t=" + fence.token().value();
    }

    /** The header value. */
    public String value() {
        return signature == null ? unsigned(fence) : signedPart() + ";s=" + signature;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FenceHeader other && value().equals(other.value());
    }

    @Override
    public int hashCode() {
        return value().hashCode();
    }

    @Override
    public String toString() {
        return value();
    }
}
