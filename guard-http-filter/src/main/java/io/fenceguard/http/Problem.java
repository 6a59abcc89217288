package io.fenceguard.http;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.internal.Json;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Why a guarded request was refused, as RFC 9457 problem details. Tokens are written as strings: they
 * exceed the integers a JSON number keeps exact in many parsers.
 */
public final class Problem {

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final String TYPE_BASE = "https://fenceguard.io/problems/";

    private final int status;
    private final String type;
    private final String title;
    private final String detail;
    private final ResourceName resource;
    private final FencingToken token;
    private final FencingToken highWater;

    private Problem(int status, String type, String title, String detail, ResourceName resource,
            FencingToken token, FencingToken highWater) {
        this.status = status;
        this.type = type;
        this.title = title;
        this.detail = detail;
        this.resource = resource;
        this.token = token;
        this.highWater = highWater;
    }

    static Problem stale(Admission admission) {
        return new Problem(409, "stale-token", "Stale fencing token",
                "token " + admission.presented() + " for '" + admission.resource() + "' is older than token "
                        + admission.highWater() + ", which the resource has already admitted",
                admission.resource(), admission.presented(), admission.highWater());
    }

    static Problem missing(ResourceName resource, String headerName) {
        return new Problem(428, "missing-token", "Fencing token required",
                "this endpoint requires the " + headerName + " header" + (resource == null ? "" : " for '" + resource + "'"),
                resource, null, null);
    }

    static Problem malformed(ResourceName resource, String detail) {
        return new Problem(400, "malformed-token", "Malformed fencing token", detail, resource, null, null);
    }

    static Problem forged(ResourceName resource, FencingToken token, String detail) {
        return new Problem(403, "untrusted-token", "Untrusted fencing token", detail, resource, token, null);
    }

    static Problem unavailable(ResourceName resource, FencingToken token) {
        return new Problem(503, "store-unavailable", "Fencing check unavailable",
                "the high-water store could not be consulted; the request was refused", resource, token, null);
    }

    /** The resource concerned, when known. */
    public java.util.Optional<ResourceName> resource() {
        return java.util.Optional.ofNullable(resource);
    }

    /** The presented token, when it could be read. */
    public java.util.Optional<FencingToken> token() {
        return java.util.Optional.ofNullable(token);
    }

    /** The highest token the resource has admitted, for stale refusals. */
    public java.util.Optional<FencingToken> highWater() {
        return java.util.Optional.ofNullable(highWater);
    }

    public int status() {
        return status;
    }

    public String type() {
        return TYPE_BASE + type;
    }

    public String title() {
        return title;
    }

    public String detail() {
        return detail;
    }

    /** The JSON body; {@code instance} is the request path. */
    public String toJson(String instance) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("type", type());
        fields.put("title", title);
        fields.put("status", status);
        fields.put("detail", detail);
        fields.put("instance", instance);
        if (resource != null) {
            fields.put("resource", resource.value());
        }
        if (token != null) {
            fields.put("token", token.toString());
        }
        if (highWater != null) {
            fields.put("highWater", highWater.toString());
        }
        return Json.object(fields);
    }

    @Override
    public String toString() {
        return status + " " + title + ": " + detail;
    }
}
