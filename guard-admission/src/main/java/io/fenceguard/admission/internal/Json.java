package io.fenceguard.admission.internal;

import java.util.Map;

/** The little JSON the problem bodies need, without a JSON library. */
public final class Json {

    private Json() {
    }

    public static String object(Map<String, Object> fields) {
        StringBuilder out = new StringBuilder("{");
        fields.forEach((name, value) -> {
            if (out.length() > 1) {
                out.append(',');
            }
            string(out, name);
            out.append(':');
            if (value instanceof Number) {
                out.append(value);
            } else {
                string(out, String.valueOf(value));
            }
        });
        return out.append('}').toString();
    }

    private static void string(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
