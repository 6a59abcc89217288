package io.fenceguard.admission.internal;

/**
 * The parameters of a {@code Signature-Input} in the one profile {@code RequestSignatures} accepts, read by a scanner:
 * the language of
 * {@code fg=\("@method" "@target-uri" "([a-z0-9-]{1,64})" "content-digest"\);created=(\d{1,12});expires=(\d{1,12});keyid="([A-Za-z0-9._-]{1,32})";nonce="([A-Za-z0-9_-]{16,64})";alg="hmac-sha256"}
 * and nothing else. Every request with a signature is read once; a regular expression costs several times more per
 * character. Each run of characters ends at a character its class lacks, so reading as far as the class allows decides
 * as the expression would.
 *
 * @param header the covered fencing header's name, lower case
 */
public record SignatureInput(String header, long created, long expires, String keyId, String nonce) {

    /** The parameters of {@code input}; {@code null} when it is not of the profile. */
    public static SignatureInput parse(String input) {
        Scanner in = new Scanner(input);
        if (!in.literal("fg=(\"@method\" \"@target-uri\" \"")) {
            return null;
        }
        String header = in.run(CharClass.LOWER_HEADER_NAME, 1, 64);
        if (header == null || !in.literal("\" \"content-digest\");created=")) {
            return null;
        }
        long created = in.number();
        if (created < 0 || !in.literal(";expires=")) {
            return null;
        }
        long expires = in.number();
        if (expires < 0 || !in.literal(";keyid=\"")) {
            return null;
        }
        String keyId = in.run(CharClass.KEY_ID, 1, 32);
        if (keyId == null || !in.literal("\";nonce=\"")) {
            return null;
        }
        String nonce = in.run(CharClass.BASE64URL, 16, 64);
        if (nonce == null || !in.literal("\";alg=\"hmac-sha256\"") || !in.atEnd()) {
            return null;
        }
        return new SignatureInput(header, created, expires, keyId, nonce);
    }

    /** Whether {@code value} is {@code prefix}, 43 base64 characters, {@code =:} (a SHA-256 value in a structured field). */
    public static boolean isBase64Sha256(String value, String prefix) {
        Scanner in = new Scanner(value);
        return in.literal(prefix) && in.run(CharClass.BASE64, 43, 43) != null && in.literal("=:") && in.atEnd();
    }

    private static final class Scanner {
        private final String text;
        private int at;

        Scanner(String text) {
            this.text = text;
        }

        boolean literal(String expected) {
            if (!text.startsWith(expected, at)) {
                return false;
            }
            at += expected.length();
            return true;
        }

        /** The longest run of at most {@code max} characters of {@code allowed} here; null when shorter than {@code min}. */
        String run(CharClass allowed, int min, int max) {
            int start = at;
            int end = allowed.run(text, start, max);
            if (end - start < min) {
                return null;
            }
            at = end;
            return text.substring(start, end);
        }

        /** The number of the run of 1 to 12 digits here (read without a substring); -1 when there is none. */
        long number() {
            int start = at;
            int end = CharClass.DIGITS.run(text, start, 12);
            if (end == start) {
                return -1;
            }
            at = end;
            return Long.parseLong(text, start, end, 10);
        }

        boolean atEnd() {
            return at == text.length();
        }
    }
}
