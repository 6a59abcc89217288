package io.fenceguard.core;

import java.util.Objects;

/**
 * A resource and a fencing token for it: what a write is fenced with. The one value every layer
 * passes around: a lease's fence, the fence a SQL statement is stamped with, the fence an HTTP header
 * or a message carries and the fence a resource admitted.
 */
public record Fence(ResourceName resource, FencingToken token) {

    public Fence {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(token, "token");
    }

    public static Fence of(ResourceName resource, FencingToken token) {
        return new Fence(resource, token);
    }

    /** Parses both parts strictly, as {@link ResourceName#of} and {@link FencingToken#parse} do. */
    public static Fence of(String resource, String token) {
        return new Fence(ResourceName.of(resource), FencingToken.parse(token));
    }

    /** Same resource and a greater token. */
    public boolean supersedes(Fence other) {
        return resource.equals(other.resource) && token.isNewerThan(other.token);
    }

    @Override
    public String toString() {
        return resource + "@" + token;
    }
}
