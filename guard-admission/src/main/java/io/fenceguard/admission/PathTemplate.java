package io.fenceguard.admission;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A path pattern such as {@code /accounts/{id}/**}: literal segments, {@code {name}} captures one
 * segment, {@code *} matches one segment, a final {@code **} matches the rest (also nothing).
 * Matching is exact and case-sensitive; empty segments ({@code //}) and trailing slashes do not match.
 */
public final class PathTemplate implements RoutePattern {

    private static final Pattern VARIABLE = Pattern.compile("\\{[A-Za-z][A-Za-z0-9_]{0,31}}");
    private static final Pattern LITERAL = Pattern.compile("[^{}*/]+");

    private final String text;
    private final List<String> segments;
    private final boolean rest;

    private PathTemplate(String text, List<String> segments, boolean rest) {
        this.text = text;
        this.segments = segments;
        this.rest = rest;
    }

    public static PathTemplate of(String text) {
        if (text == null || !text.startsWith("/")) {
            throw new IllegalArgumentException("a path pattern starts with '/', got '" + text + "'");
        }
        List<String> segments = text.equals("/") ? List.of() : List.of(text.substring(1).split("/", -1));
        boolean rest = !segments.isEmpty() && segments.get(segments.size() - 1).equals("**");
        List<String> fixed = rest ? segments.subList(0, segments.size() - 1) : segments;
        for (String segment : fixed) {
            if (!segment.equals("*") && !VARIABLE.matcher(segment).matches() && !LITERAL.matcher(segment).matches()) {
                throw new IllegalArgumentException("invalid segment '" + segment + "' in path pattern '" + text
                        + "': use literals, {name}, * or a final **");
            }
        }
        return new PathTemplate(text, List.copyOf(fixed), rest);
    }

    @Override
    public Optional<Map<String, String>> match(String path) {
        if (path == null || !path.startsWith("/")) {
            return Optional.empty();
        }
        String[] parts = path.equals("/") ? new String[0] : path.substring(1).split("/", -1);
        if (parts.length < segments.size() || (!rest && parts.length != segments.size())) {
            return Optional.empty();
        }
        Map<String, String> variables = new HashMap<>();
        for (int i = 0; i < segments.size(); i++) {
            String segment = segments.get(i);
            String part = parts[i];
            if (part.isEmpty()) {
                return Optional.empty();
            }
            if (segment.startsWith("{")) {
                variables.put(segment.substring(1, segment.length() - 1), part);
            } else if (!segment.equals("*") && !segment.equals(part)) {
                return Optional.empty();
            }
        }
        return Optional.of(variables);
    }

    @Override
    public String toString() {
        return text;
    }
}
