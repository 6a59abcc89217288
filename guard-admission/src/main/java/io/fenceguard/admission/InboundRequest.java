package io.fenceguard.admission;

import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * What {@link InboundFence} needs of a request, from any server API: method, the path the
 * application maps, the target URI as the client addressed it (scheme, authority, path and query), the
 * header values by name (case-insensitive; an empty list when absent) and the body.
 */
public record InboundRequest(String method, String path, URI targetUri, Function<String, List<String>> headers,
        byte[] body) {

    public InboundRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(targetUri, "targetUri");
        Objects.requireNonNull(headers, "headers");
        body = body == null ? new byte[0] : body;
    }

    public List<String> header(String name) {
        List<String> values = headers.apply(name);
        return values == null ? List.of() : values;
    }
}
