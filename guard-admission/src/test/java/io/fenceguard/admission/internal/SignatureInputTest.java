package io.fenceguard.admission.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The scanner accepts exactly what the profile's regular expressions accept, with the same parameters: checked on
 * valid inputs, on each parameter at and past its length limits, and on many inputs with characters deleted, added,
 * replaced or runs repeated.
 */
class SignatureInputTest {

    private static final Pattern INPUT = Pattern.compile("fg=\\(\"@method\" \"@target-uri\" \"([a-z0-9-]{1,64})\" "
            + "\"content-digest\"\\);created=(\\d{1,12});expires=(\\d{1,12});keyid=\"([A-Za-z0-9._-]{1,32})\";"
            + "nonce=\"([A-Za-z0-9_-]{16,64})\";alg=\"hmac-sha256\"");
    private static final Pattern DIGEST = Pattern.compile("sha-256=:([A-Za-z0-9+/]{43}=):");
    private static final Pattern SIGNATURE = Pattern.compile("fg=:([A-Za-z0-9+/]{43}=):");
    /** Characters of every class in the profile, its delimiters, and some of none. */
    private static final String ALPHABET = "azAZ09-_./+=:;\"() @#é\u0000\u00ff\u2028";

    private static String input(String header, String created, String expires, String keyId, String nonce) {
        return "fg=(\"@method\" \"@target-uri\" \"" + header + "\" \"content-digest\");created=" + created + ";expires="
                + expires + ";keyid=\"" + keyId + "\";nonce=\"" + nonce + "\";alg=\"hmac-sha256\"";
    }

    @Test
    void aSignatureInputOfTheProfileIsReadWithItsParameters() {
        SignatureInput in = SignatureInput.parse(input("fencing-token", "1763906400", "1763906430", "k1",
                "4nq3lAbcdefGHIJ_-0123"));
        assertThat(in).isEqualTo(new SignatureInput("fencing-token", 1763906400L, 1763906430L, "k1",
                "4nq3lAbcdefGHIJ_-0123"));
    }

    @Test
    void theScannerAgreesWithTheExpressionsOnEveryLimitAndOnMutatedInputs() {
        List<String> inputs = new ArrayList<>();
        String valid = input("fencing-token", "1763906400", "1763906430", "key.1_a-B", "AAAAAAAAAAAAAAAAAAAAAAAA");
        inputs.add(valid);
        for (int n : new int[] {0, 1, 2, 11, 12, 13, 15, 16, 17, 31, 32, 33, 63, 64, 65}) {
            inputs.add(input("h".repeat(n), "1", "2", "k", "n".repeat(16)));
            inputs.add(input("h", "9".repeat(n), "2", "k", "n".repeat(16)));
            inputs.add(input("h", "1", "9".repeat(n), "k", "n".repeat(16)));
            inputs.add(input("h", "1", "2", "k".repeat(n), "n".repeat(16)));
            inputs.add(input("h", "1", "2", "k", "n".repeat(n)));
        }
        Random random = new Random(20261127);
        String digest = "sha-256=:" + "Ab+/".repeat(10) + "xyz=:";
        String signature = "fg=:" + "Ab+/".repeat(10) + "xyz=:";
        List<String> values = new ArrayList<>(List.of(digest, signature, "sha-256=:=:", "fg=::"));
        for (int i = 0; i < 20_000; i++) {
            inputs.add(mutate(valid, random));
            values.add(mutate(i % 2 == 0 ? digest : signature, random));
        }
        int accepted = 0;
        for (String input : inputs) {
            Matcher expected = INPUT.matcher(input);
            SignatureInput read = SignatureInput.parse(input);
            if (expected.matches()) {
                accepted++;
                assertThat(read).as(input).isEqualTo(new SignatureInput(expected.group(1),
                        Long.parseLong(expected.group(2)), Long.parseLong(expected.group(3)), expected.group(4),
                        expected.group(5)));
            } else {
                assertThat(read).as(input).isNull();
            }
        }
        int acceptedValues = 0;
        for (String value : values) {
            boolean digestExpected = DIGEST.matcher(value).matches();
            boolean signatureExpected = SIGNATURE.matcher(value).matches();
            acceptedValues += digestExpected || signatureExpected ? 1 : 0;
            assertThat(SignatureInput.isBase64Sha256(value, "sha-256=:")).as(value).isEqualTo(digestExpected);
            assertThat(SignatureInput.isBase64Sha256(value, "fg=:")).as(value).isEqualTo(signatureExpected);
        }
        // both sides of the decision were exercised, not only refusals
        assertThat(accepted).isGreaterThan(100).isLessThan(inputs.size() - 1000);
        assertThat(acceptedValues).isGreaterThan(100).isLessThan(values.size() - 1000);
    }

    /** One to three edits: a character deleted, added or replaced, or a run repeated. */
    private static String mutate(String text, Random random) {
        StringBuilder s = new StringBuilder(text);
        for (int edits = 1 + random.nextInt(3); edits > 0 && s.length() > 0; edits--) {
            int at = random.nextInt(s.length());
            char c = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
            switch (random.nextInt(4)) {
                case 0 -> s.deleteCharAt(at);
                case 1 -> s.insert(at, c);
                case 2 -> s.setCharAt(at, c);
                default -> {
                    int end = Math.min(s.length(), at + 1 + random.nextInt(4));
                    s.insert(end, s.substring(at, end));
                }
            }
        }
        return s.toString();
    }
}
