package io.fenceguard.admission.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Each class accepts what its regular expression does: every character up to U+2FFF, and lengths around the limits. */
class CharClassTest {

    @Test
    void eachClassMatchesWhatItsExpressionMatches() {
        Map<CharClass, String> expressions = Map.of(
                CharClass.DIGITS, "[0-9]",
                CharClass.HEADER_NAME, "[A-Za-z0-9-]",
                CharClass.LOWER_HEADER_NAME, "[a-z0-9-]",
                CharClass.KEY_ID, "[A-Za-z0-9._-]",
                CharClass.BASE64URL, "[A-Za-z0-9_-]",
                CharClass.BASE64, "[A-Za-z0-9+/]");
        expressions.forEach((chars, expression) -> {
            Pattern one = Pattern.compile(expression);
            int members = 0;
            for (char c = 0; c < 0x3000; c++) {
                boolean expected = one.matcher(String.valueOf(c)).matches();
                members += expected ? 1 : 0;
                assertThat(chars.contains(c)).as("%s U+%04X", expression, (int) c).isEqualTo(expected);
                assertThat(chars.matches("x" + c, 2, 2)).isEqualTo(expected && chars.contains('x'));
            }
            assertThat(members).as(expression).isGreaterThan(9);
            Pattern bounded = Pattern.compile(expression + "{2,4}");
            for (int n = 0; n <= 6; n++) {
                String value = "0".repeat(n);
                assertThat(chars.matches(value, 2, 4)).as("%s × %d", expression, n)
                        .isEqualTo(bounded.matcher(value).matches());
            }
        });
    }
}
