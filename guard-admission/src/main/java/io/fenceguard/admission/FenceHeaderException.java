package io.fenceguard.admission;

import io.fenceguard.core.FenceguardException;

/**
 * A fencing header that cannot be admitted whatever the token: malformed (HTTP 400) or not
 * authentic (HTTP 403: unsigned where a signature is required, unknown key, wrong signature, or a
 * token for another resource than the endpoint's).
 */
public final class FenceHeaderException extends FenceguardException {

    /** Why the header was refused. */
    public enum Kind { MALFORMED, UNTRUSTED }

    private final Kind kind;

    private FenceHeaderException(Kind kind, String message) {
        super(message, null, null);
        this.kind = kind;
    }

    public static FenceHeaderException malformed(String message) {
        return new FenceHeaderException(Kind.MALFORMED, message);
    }

    public static FenceHeaderException untrusted(String message) {
        return new FenceHeaderException(Kind.UNTRUSTED, message);
    }

    public Kind kind() {
        return kind;
    }
}
