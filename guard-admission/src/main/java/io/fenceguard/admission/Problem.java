package io.fenceguard.admission;

import io.fenceguard.admission.internal.Json;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Refusal;
import io.fenceguard.core.ResourceName;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Why a fenced request was refused, as RFC 9457 problem details with a type
 * {@code urn:fenceguard:<kind>}: {@code stale-token} (409), {@code missing-token} (428),
 * {@code malformed-token} (400), {@code untrusted-token} (403), {@code token-out-of-range} (403),
 * {@code replayed-request} (403),
 * {@code store-unavailable} (503) and
 * {@code not-admitted} (428). Tokens are written as strings: they exceed the integers a JSON number
 * keeps exact in many parsers.
 */
public final class Problem {

    public static final String MEDIA_TYPE = "application/problem+json";
    /** The Content-Type of a problem response, as both HTTP filters send it: {@value #MEDIA_TYPE} in UTF-8. */
    public static final String CONTENT_TYPE = MEDIA_TYPE + ";charset=UTF-8";
    /** The prefix of every problem type of fenceguard. */
    public static final String TYPE_PREFIX = "urn:fenceguard:";

    private final int status;
    private final String kind;
    private final String title;
    private final String detail;
    private final ResourceName resource;
    private final FencingToken token;
    private final FencingToken highWater;

    private Problem(int status, String kind, String title, String detail, ResourceName resource,
            FencingToken token, FencingToken highWater) {
        this.status = status;
        this.kind = kind;
        this.title = title;
        this.detail = detail;
        this.resource = resource;
        this.token = token;
        this.highWater = highWater;
    }

    static Problem stale(Admission admission) {
        Fence presented = admission.presented();
        return new Problem(409, "stale-token", "Stale fencing token",
                "token " + presented.token() + " for '" + presented.resource() + "' is older than token "
                        + admission.highWater() + ", which the resource has already admitted",
                presented.resource(), presented.token(), admission.highWater());
    }

    static Problem missing(ResourceName resource, String headerName) {
        return new Problem(428, "missing-token", "Fencing token required",
                "this endpoint requires the " + headerName + " header" + (resource == null ? "" : " for '" + resource + "'"),
                resource, null, null);
    }

    static Problem malformed(ResourceName resource, String detail) {
        return new Problem(400, "malformed-token", "Malformed fencing token", detail, resource, null, null);
    }

    static Problem untrusted(Fence presented, String detail) {
        return new Problem(403, "untrusted-token", "Untrusted fencing token", detail, presented.resource(),
                presented.token(), null);
    }

    static Problem outOfRange(Fence presented, FencingToken ceiling) {
        return new Problem(403, "token-out-of-range", "Fencing token out of range",
                "token " + presented.token() + " for '" + presented.resource() + "' is above " + ceiling
                        + ", the highest token a lock store can have issued by now; it was not admitted",
                presented.resource(), presented.token(), null);
    }

    /** A token above the highest the lock store has granted for its resource. */
    static Problem notGranted(Fence presented, FencingToken granted) {
        return new Problem(403, "token-out-of-range", "Fencing token out of range",
                "token " + presented.token() + " for '" + presented.resource() + "' is above " + granted
                        + ", the highest token the lock store has granted for it; it was not admitted",
                presented.resource(), presented.token(), null);
    }

    /** A body too long to check (a request-signed body against its digest, an idempotent request's fingerprint). */
    public static Problem bodyTooLarge(int maxBytes) {
        return new Problem(413, "body-too-large", "Body too large",
                "a request-signed body is checked against its Content-Digest up to " + maxBytes + " bytes; this one is "
                        + "longer", null, null, null);
    }

    static Problem replayed(Fence presented) {
        return new Problem(403, "replayed-request", "Replayed request",
                "this signed request (its signature's nonce) was admitted before; a request signature is used once",
                presented.resource(), presented.token(), null);
    }

    /** A store (high-water, nonce, idempotency) that could not answer; the request is refused. */
    public static Problem unavailable(Fence presented) {
        return new Problem(503, "store-unavailable", "Fencing check unavailable",
                "the high-water store could not be consulted; the request was refused", presented.resource(),
                presented.token(), null);
    }

    /** The first request with the idempotency key has not completed yet. */
    public static Problem idempotencyInProgress(Fence presented, String key) {
        return new Problem(409, "idempotency-in-progress", "Request in progress",
                "a request with Idempotency-Key '" + key + "' for '" + presented.resource() + "' is still being "
                        + "processed; retry later", presented.resource(), presented.token(), null);
    }

    /** The idempotency key came first with another request. */
    public static Problem idempotencyKeyReused(Fence presented, String key) {
        return new Problem(422, "idempotency-key-reused", "Idempotency key reused",
                "Idempotency-Key '" + key + "' for '" + presented.resource() + "' was first used with another request "
                        + "(method, path or body); nothing was done", presented.resource(), presented.token(), null);
    }

    /** An idempotency key that is not one. */
    public static Problem badIdempotencyKey(Fence presented, String detail) {
        return new Problem(400, "malformed-idempotency-key", "Malformed idempotency key", detail,
                presented.resource(), presented.token(), null);
    }

    /** An admitted request whose admission and handler's transaction could not be committed. */
    public static Problem notCommitted(Fence presented) {
        return new Problem(503, "not-committed", "Not committed",
                "the admission and the handler's transaction could not be committed; nothing was done",
                presented.resource(), presented.token(), null);
    }

    /** A fenced handler reached without the filter's admission (see {@code FencedEndpointInterceptor}). */
    public static Problem notAdmitted() {
        return new Problem(428, "not-admitted", "Not admitted", "this endpoint is fenced, but the fencing filter "
                + "did not admit the request; nothing was done", null, null, null);
    }

    /** The resource concerned, when known. */
    public Optional<ResourceName> resource() {
        return Optional.ofNullable(resource);
    }

    /** The presented token, when it could be read. */
    public Optional<FencingToken> token() {
        return Optional.ofNullable(token);
    }

    /** The highest token the resource has admitted, for stale refusals. */
    public Optional<FencingToken> highWater() {
        return Optional.ofNullable(highWater);
    }

    public int status() {
        return status;
    }

    /** The problem type: {@value #TYPE_PREFIX} and the kind, such as {@code urn:fenceguard:stale-token}. */
    public String type() {
        return TYPE_PREFIX + kind;
    }

    public String title() {
        return title;
    }

    public String detail() {
        return detail;
    }

    /**
     * This problem as a refusal of a request to {@code method} {@code path}, for the
     * {@link io.fenceguard.core.RefusalListener}: layer {@code HTTP}, the reason the type after
     * {@value #TYPE_PREFIX} ({@code stale-token}, …), where {@code "POST /accounts/42"}, the problem itself the
     * original.
     */
    public Refusal refusal(String method, String path) {
        return Refusal.builder(Refusal.Layer.HTTP, kind).resource(resource).token(token).highWater(highWater)
                .where(method + " " + path).detail(detail).original(this).build();
    }

    /** The response body of this problem about {@code instance}: {@link #toJson} in UTF-8. */
    public byte[] body(String instance) {
        return toJson(instance).getBytes(java.nio.charset.StandardCharsets.UTF_8);
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
