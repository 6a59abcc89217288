package io.fenceguard.admission;

import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.ResourceName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a fenced endpoint's resource name comes from: a template over the path variables, such as
 * {@code account:{id}}, or, when empty, the resource named by the fencing header itself (for
 * endpoints whose resource is not in the URL; the header's signature then vouches for it).
 */
public final class ResourceTemplate {

    private static final Pattern VARIABLE = Pattern.compile("\\{([A-Za-z][A-Za-z0-9_]{0,31})}");
    private static final ResourceTemplate FROM_HEADER = new ResourceTemplate("");

    private final String text;
    /**
     * The template cut at its variables once: literal parts at even indexes, variable names at odd ones, so
     * that resolving a request's resource needs no pattern matching.
     */
    private final String[] parts;

    private ResourceTemplate(String text) {
        this.text = text;
        List<String> cut = new ArrayList<>();
        Matcher matcher = VARIABLE.matcher(text);
        int at = 0;
        while (matcher.find()) {
            cut.add(text.substring(at, matcher.start()));
            cut.add(matcher.group(1));
            at = matcher.end();
        }
        cut.add(text.substring(at));
        this.parts = cut.toArray(new String[0]);
    }

    public static ResourceTemplate of(String text) {
        if (text == null || text.isEmpty()) {
            return FROM_HEADER;
        }
        // The literal parts must be valid on their own, so that only variables can make a name invalid.
        String literals = VARIABLE.matcher(text).replaceAll("x");
        ResourceName.of(literals);
        return new ResourceTemplate(text);
    }

    public static ResourceTemplate fromHeader() {
        return FROM_HEADER;
    }

    public boolean isFromHeader() {
        return text.isEmpty();
    }

    /**
     * The resource for these path variables; empty when it comes from the header.
     *
     * @throws FenceHeaderException (malformed) when a variable is missing or makes an invalid name
     */
    public Optional<ResourceName> resolve(Map<String, String> variables) {
        if (isFromHeader()) {
            return Optional.empty();
        }
        StringBuilder name = new StringBuilder(parts[0]);
        for (int i = 1; i < parts.length; i += 2) {
            String value = variables.get(parts[i]);
            if (value == null) {
                throw new IllegalStateException("resource template '" + text + "' uses {" + parts[i]
                        + "}, which the path pattern does not capture");
            }
            name.append(value).append(parts[i + 1]);
        }
        try {
            return Optional.of(ResourceName.of(name.toString()));
        } catch (InvalidResourceNameException e) {
            throw FenceHeaderException.malformed("the request path gives an invalid resource name: " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return isFromHeader() ? "<from header>" : text;
    }
}
