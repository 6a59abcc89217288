package io.fenceguard.core;

/** The root of everything fenceguard throws, with the resource and token it concerns where known. */
public class FenceguardException extends RuntimeException {

    private final transient ResourceName resource;
    private final transient FencingToken token;

    public FenceguardException(String message, ResourceName resource, FencingToken token, Throwable cause) {
        super(message, cause);
        this.resource = resource;
        this.token = token;
    }

    public FenceguardException(String message, ResourceName resource, FencingToken token) {
        this(message, resource, token, null);
    }

    /** The resource concerned, or {@code null}. */
    public ResourceName resource() {
        return resource;
    }

    /** The token concerned, or {@code null}. */
    public FencingToken token() {
        return token;
    }
}
