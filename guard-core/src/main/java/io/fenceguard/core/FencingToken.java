package io.fenceguard.core;

/**
 * A fencing token: a positive number, strictly greater for every new lease on the same resource.
 * A resource admits a write whose token is greater than or equal to the greatest it has seen.
 */
public final class FencingToken implements Comparable<FencingToken> {

    private final long value;

    private FencingToken(long value) {
        this.value = value;
    }

    public static FencingToken of(long value) {
        if (value <= 0) {
            throw new IllegalArgumentException("a fencing token is positive, got " + value);
        }
        return new FencingToken(value);
    }

    /**
     * Parses a token strictly: 1 to 19 ASCII digits, no sign, no leading zero, no white space,
     * at most {@link Long#MAX_VALUE}.
     */
    public static FencingToken parse(String text) {
        if (text == null || text.isEmpty() || text.length() > 19) {
            throw new IllegalArgumentException("a fencing token is 1 to 19 digits, got "
                    + (text == null ? "nothing" : text.length() + " characters"));
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("a fencing token has only digits 0-9");
            }
        }
        if (text.charAt(0) == '0') {
            throw new IllegalArgumentException("a fencing token has no leading zero");
        }
        try {
            return of(Long.parseLong(text));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a fencing token is at most " + Long.MAX_VALUE);
        }
    }

    public long value() {
        return value;
    }

    public boolean isNewerThan(FencingToken other) {
        return value > other.value;
    }

    @Override
    public int compareTo(FencingToken other) {
        return Long.compare(value, other.value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FencingToken other && value == other.value;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(value);
    }

    @Override
    public String toString() {
        return Long.toString(value);
    }
}
