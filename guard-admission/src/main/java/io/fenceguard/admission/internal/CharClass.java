package io.fenceguard.admission.internal;

/**
 * A set of ASCII characters, checked by table: what the header formats allow, read on every request without a regular
 * expression's per-character cost.
 */
public final class CharClass {

    private static final String LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    public static final CharClass DIGITS = of("0123456789");
    /** A header name's characters. */
    public static final CharClass HEADER_NAME = of(LETTERS + "0123456789-");
    /** A header name as a request signature covers it: lower case. */
    public static final CharClass LOWER_HEADER_NAME = of("abcdefghijklmnopqrstuvwxyz0123456789-");
    /** A signing key's id. */
    public static final CharClass KEY_ID = of(LETTERS + "0123456789._-");
    /** Base64url without padding: nonces of request signatures, signatures of compact fencing headers. */
    public static final CharClass BASE64URL = of(LETTERS + "0123456789_-");
    /** Base64 (padding apart): digests and signatures in structured fields. */
    public static final CharClass BASE64 = of(LETTERS + "0123456789+/");

    private final boolean[] allowed = new boolean[128];

    private CharClass(String chars) {
        for (int i = 0; i < chars.length(); i++) {
            allowed[chars.charAt(i)] = true;
        }
    }

    /** The class of exactly the characters of {@code chars} (all ASCII). */
    public static CharClass of(String chars) {
        return new CharClass(chars);
    }

    public boolean contains(char c) {
        return c < allowed.length && allowed[c];
    }

    /** Whether {@code value} is {@code min} to {@code max} characters of this class, and nothing else. */
    public boolean matches(String value, int min, int max) {
        int length = value.length();
        return length >= min && length <= max && run(value, 0, max) == length;
    }

    /** Where the run of at most {@code max} characters of this class starting at {@code from} ends. */
    public int run(String text, int from, int max) {
        int end = (int) Math.min(text.length(), (long) from + max);
        int i = from;
        while (i < end && contains(text.charAt(i))) {
            i++;
        }
        return i;
    }
}
