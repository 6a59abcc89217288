package io.fenceguard.core;

import java.util.Objects;

/**
 * The name of a guarded resource, such as {@code account:42}.
 *
 * <p>1 to 200 characters from {@code A-Z a-z 0-9 : . _ - / @ #}. Braces are excluded because the name
 * becomes a Redis Cluster hash tag ({@code {name}}) that keeps all keys of one resource in one slot;
 * whitespace and control characters are excluded because the name also travels in HTTP headers.
 */
public final class ResourceName implements Comparable<ResourceName> {

    public static final int MAX_LENGTH = 200;
    /** The allowed characters, by table: names are checked on every fenced request and message. */
    private static final boolean[] ALLOWED = new boolean[128];

    static {
        for (char c : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:._-/@#".toCharArray()) {
            ALLOWED[c] = true;
        }
    }

    private final String value;

    private ResourceName(String value) {
        this.value = value;
    }

    public static ResourceName of(String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidResourceNameException(String.valueOf(value), "must not be empty");
        }
        if (value.length() > MAX_LENGTH) {
            throw new InvalidResourceNameException(abbreviate(value),
                    "is " + value.length() + " characters long; at most " + MAX_LENGTH + " are allowed");
        }
        if (!allowed(value)) {
            throw new InvalidResourceNameException(abbreviate(value),
                    "may only contain letters, digits and : . _ - / @ #");
        }
        return new ResourceName(value);
    }

    private static boolean allowed(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= ALLOWED.length || !ALLOWED[c]) {
                return false;
            }
        }
        return true;
    }

    private static String abbreviate(String value) {
        String printable = value.codePoints()
                .map(c -> Character.isISOControl(c) ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
                .toString();
        return printable.length() > 60 ? printable.substring(0, 60) + "…" : printable;
    }

    public String value() {
        return value;
    }

    @Override
    public int compareTo(ResourceName other) {
        return value.compareTo(other.value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ResourceName other && value.equals(other.value);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
