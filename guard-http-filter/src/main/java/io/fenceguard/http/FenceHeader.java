package io.fenceguard.http;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.ResourceName;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The value of the fencing header: a token bound to the resource it was issued for, optionally signed.
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
 * everything before {@code ;s=}.
 */
public final class FenceHeader {

    public static final String DEFAULT_NAME = "Fencing-Token";
    public static final int MAX_LENGTH = 320;
    static final String VERSION = "v1";
    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,32}");
    private static final Pattern SIGNATURE = Pattern.compile("[A-Za-z0-9_-]{43}");

    private final ResourceName resource;
    private final FencingToken token;
    private final String keyId;
    private final String signature;

    private FenceHeader(ResourceName resource, FencingToken token, String keyId, String signature) {
        this.resource = Objects.requireNonNull(resource, "resource");
        this.token = Objects.requireNonNull(token, "token");
        this.keyId = keyId;
        this.signature = signature;
    }

    /** An unsigned header. */
    public static FenceHeader of(ResourceName resource, FencingToken token) {
        return new FenceHeader(resource, token, null, null);
    }

    static FenceHeader signed(ResourceName resource, FencingToken token, String keyId, String signature) {
        requireKeyId(keyId);
        return new FenceHeader(resource, token, keyId, signature);
    }

    static String requireKeyId(String keyId) {
        if (keyId == null || !KEY_ID.matcher(keyId).matches()) {
            throw new IllegalArgumentException("a signing key id is 1 to 32 characters from A-Z a-z 0-9 . _ -");
        }
        return keyId;
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
        if (parts.length == 3) {
            return new FenceHeader(resource, token, null, null);
        }
        String keyId = field(parts[3], "k=");
        String signature = field(parts[4], "s=");
        if (!KEY_ID.matcher(keyId).matches()) {
            throw FenceHeaderException.malformed("the key id is 1 to 32 characters from A-Z a-z 0-9 . _ -");
        }
        if (!SIGNATURE.matcher(signature).matches()) {
            throw FenceHeaderException.malformed("the signature is 43 base64url characters without padding");
        }
        return new FenceHeader(resource, token, keyId, signature);
    }

    private static String field(String part, String prefix) {
        if (!part.startsWith(prefix)) {
            throw FenceHeaderException.malformed("expected field '" + prefix + "…' in the fencing header");
        }
        return part.substring(prefix.length());
    }

    public ResourceName resource() {
        return resource;
    }

    public FencingToken token() {
        return token;
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
        return signedPart(resource, token, keyId);
    }

    static String signedPart(ResourceName resource, FencingToken token, String keyId) {
        return VERSION + ";r=" + resource.value() + ";t=" + token.value() + ";k=" + keyId;
    }

    /** The header value. */
    public String value() {
        String unsigned = VERSION + ";r=" + resource.value() + ";t=" + token.value();
        return signature == null ? unsigned : unsigned + ";k=" + keyId + ";s=" + signature;
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
