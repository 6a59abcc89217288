package io.fenceguard.http;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.Objects;

/** A token a request carried in and the filter admitted: the resource server works under it for that request. */
public final class InboundToken {

    private final ResourceName resource;
    private final FencingToken token;

    private InboundToken(ResourceName resource, FencingToken token) {
        this.resource = Objects.requireNonNull(resource, "resource");
        this.token = Objects.requireNonNull(token, "token");
    }

    public static InboundToken of(ResourceName resource, FencingToken token) {
        return new InboundToken(resource, token);
    }

    public ResourceName resource() {
        return resource;
    }

    public FencingToken token() {
        return token;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof InboundToken other && resource.equals(other.resource) && token.equals(other.token);
    }

    @Override
    public int hashCode() {
        return Objects.hash(resource, token);
    }

    @Override
    public String toString() {
        return "InboundToken[" + resource + ", token " + token + "]";
    }
}
