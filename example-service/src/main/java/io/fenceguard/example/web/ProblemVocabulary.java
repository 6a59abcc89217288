package io.fenceguard.example.web;

import java.util.Map;

/**
 * The example's problem types by HTTP status, for answers that no handler of the application wrote
 * (Spring MVC's own 4xx, Boot's error path, Tomcat's rejections): {@code urn:fenceguard:<kind>}, the
 * vocabulary of the fencing filter and the ledger's handlers.
 */
public final class ProblemVocabulary {

    private static final Map<Integer, String[]> KINDS = Map.ofEntries(
            Map.entry(400, new String[] {"bad-request", "Bad request"}),
            Map.entry(401, new String[] {"unauthorized", "Unauthorized"}),
            Map.entry(403, new String[] {"forbidden", "Forbidden"}),
            Map.entry(404, new String[] {"not-found", "Not found"}),
            Map.entry(405, new String[] {"method-not-allowed", "Method not allowed"}),
            Map.entry(406, new String[] {"not-acceptable", "Not acceptable"}),
            Map.entry(408, new String[] {"request-timeout", "Request timeout"}),
            Map.entry(413, new String[] {"body-too-large", "Body too large"}),
            Map.entry(414, new String[] {"uri-too-long", "URI too long"}),
            Map.entry(415, new String[] {"unsupported-media-type", "Unsupported media type"}),
            Map.entry(431, new String[] {"headers-too-large", "Request headers too large"}));

    private ProblemVocabulary() {
    }

    public static String type(int status) {
        return "urn:fenceguard:" + kind(status)[0];
    }

    public static String title(int status) {
        return kind(status)[1];
    }

    private static String[] kind(int status) {
        String[] kind = KINDS.get(status);
        if (kind != null) {
            return kind;
        }
        return status >= 500 ? new String[] {"server-error", "Server error"} : new String[] {"bad-request", "Bad request"};
    }

    /** A problem+json body with these members (strings escaped). */
    public static String json(int status, String detail, String instance) {
        return "{\"type\":\"" + type(status) + "\",\"title\":\"" + title(status) + "\",\"status\":" + status
                + ",\"detail\":\"" + escape(detail) + "\"" + (instance == null ? "" : ",\"instance\":\"" + escape(instance) + "\"")
                + "}";
    }

    private static String escape(String text) {
        StringBuilder out = new StringBuilder();
        for (char c : (text == null ? "" : text).toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
