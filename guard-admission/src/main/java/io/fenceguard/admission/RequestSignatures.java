package io.fenceguard.admission;

import io.fenceguard.admission.internal.Hmac;
import io.fenceguard.admission.internal.SignatureInput;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Fencing headers bound to their request, following HTTP Message Signatures (RFC 9421) with
 * {@code Content-Digest} (RFC 9530). The request carries the unsigned fencing header and:
 *
 * <pre>
 * Content-Digest: sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:
 * Signature-Input: fg=("@method" "@target-uri" "fencing-token" "content-digest");created=1763906400;expires=1763906430;keyid="k1";nonce="4nq3l…";alg="hmac-sha256"
 * Signature: fg=:base64 HMAC-SHA256 of the signature base:
 * </pre>
 *
 * The signature base is RFC 9421's: one line per covered component ({@code "@method": POST},
 * {@code "@target-uri": https://ledger.internal/audit/42}, the fencing header and the body digest by
 * their lower-case names), then {@code "@signature-params": } and the parameters exactly as sent. The
 * server accepts exactly this profile (label {@code fg}, these four components in this order, these
 * parameters, HMAC-SHA256 under a listed key), a lifetime of at most {@link #MAX_LIFETIME}, and each
 * nonce once ({@link NonceStore}): a captured request cannot be sent again, nor its header used for
 * another method, URI or body.
 */
public final class RequestSignatures {

    public static final String SIGNATURE_INPUT = "Signature-Input";
    public static final String SIGNATURE = "Signature";
    public static final String CONTENT_DIGEST = "Content-Digest";
    /** Lifetime of the signatures made here. */
    public static final Duration DEFAULT_LIFETIME = Duration.ofSeconds(30);
    /** Longest lifetime (expires − created) accepted. */
    public static final Duration MAX_LIFETIME = Duration.ofMinutes(5);
    /** Allowed difference between the signer's and the verifier's clocks. */
    public static final Duration CLOCK_SKEW = Duration.ofSeconds(5);
    private static final String LABEL = "fg";
    /**
     * The Signature is {@code fg=:<43 base64 characters>=:}, the Content-Digest {@code sha-256=:<43 base64
     * characters>=:}; the accepted Signature-Input is {@link SignatureInput}'s.
     */
    private static final String SIGNATURE_PREFIX = "fg=:";
    private static final String DIGEST_PREFIX = "sha-256=:";
    /** One generator per thread: a shared one takes a lock per nonce, on every client thread signing at once. */
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(SecureRandom::new);
    /**
     * A SHA-256 digest never used itself, copied for each body: a copy skips the provider look-up of
     * {@code MessageDigest.getInstance}; null when the provider's digests cannot be copied.
     */
    private static final MessageDigest SHA_256 = copyable(newSha256());
    /**
     * Each thread's digest of whole bodies ({@link #contentDigest}), copied once: {@code digest} leaves it reset,
     * so a body is digested without a copy of the digest's state every time.
     */
    private static final ThreadLocal<MessageDigest> BODY_DIGEST = ThreadLocal.withInitial(RequestSignatures::sha256);
    /** The Content-Digest of an empty body (a request without one), the same every time. */
    private static final String EMPTY_BODY_DIGEST = format(sha256().digest(new byte[0]));

    private final SigningKeys keys;
    private final String headerName;
    /** The fencing header's name as the signature covers it: lower case, made once. */
    private final String coveredHeader;
    /** The signature base's line of the fencing header up to its value: {@code "fencing-token": }. */
    private final String headerLine;
    private final Clock clock;
    private final Duration lifetime;

    private RequestSignatures(SigningKeys keys, String headerName, Clock clock, Duration lifetime) {
        this.keys = keys;
        this.headerName = headerName;
        this.coveredHeader = headerName.toLowerCase(Locale.ROOT);
        this.headerLine = "\n\"" + coveredHeader + "\": ";
        this.clock = clock;
        this.lifetime = lifetime;
    }

    public static RequestSignatures of(SigningKeys keys, String headerName, Clock clock, Duration lifetime) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(clock, "clock");
        if (lifetime == null || lifetime.isNegative() || lifetime.isZero() || lifetime.compareTo(MAX_LIFETIME) > 0) {
            throw new IllegalArgumentException("a signature lifetime is above 0 and at most " + MAX_LIFETIME + ", got " + lifetime);
        }
        return new RequestSignatures(keys, FenceHeader.requireHeaderName(headerName), clock, lifetime);
    }

    public static RequestSignatures of(SigningKeys keys, String headerName) {
        return of(keys, headerName, Clock.systemUTC(), DEFAULT_LIFETIME);
    }

    /** {@code sha-256=:…:} of {@code body} (RFC 9530). */
    public static String contentDigest(byte[] body) {
        if (body == null || body.length == 0) {
            return EMPTY_BODY_DIGEST;
        }
        return format(BODY_DIGEST.get().digest(body));
    }

    /**
     * A SHA-256 digest to feed a body into as it streams by ({@code MessageDigest.update}), for
     * {@link #contentDigestOf(MessageDigest)}: the body is digested once, without being gathered first.
     */
    public static MessageDigest newBodyDigest() {
        return sha256();
    }

    /** {@code sha-256=:…:} of the body fed into {@code bodyDigest} (from {@link #newBodyDigest()}), which is reset. */
    public static String contentDigestOf(MessageDigest bodyDigest) {
        if (!"SHA-256".equals(bodyDigest.getAlgorithm())) {
            throw new IllegalArgumentException("a Content-Digest here is sha-256, not " + bodyDigest.getAlgorithm());
        }
        return format(bodyDigest.digest());
    }

    private static String format(byte[] sha256) {
        return "sha-256=:" + Base64.getEncoder().encodeToString(sha256) + ":";
    }

    private static MessageDigest sha256() {
        if (SHA_256 != null) {
            try {
                return (MessageDigest) SHA_256.clone();
            } catch (CloneNotSupportedException e) {
                // falls through to a new instance
            }
        }
        return newSha256();
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    private static MessageDigest copyable(MessageDigest digest) {
        try {
            digest.clone();
            return digest;
        } catch (CloneNotSupportedException e) {
            return null;
        }
    }

    /**
     * The headers that bind {@code fencingValue} (an unsigned fencing header) to this request, by name:
     * the fencing header itself, Content-Digest, Signature-Input and Signature.
     *
     * @throws IllegalStateException when there is no active key
     */
    public Map<String, String> sign(String method, URI targetUri, String fencingValue, byte[] body) {
        // The digest is made here: no need to check its form as a given one is.
        return signed(method, targetUri, fencingValue, contentDigest(body));
    }

    /**
     * As {@link #sign(String, URI, String, byte[])}, for a body already digested as it streamed by:
     * {@code contentDigest} is its {@code sha-256=:…:} ({@link #contentDigestOf}).
     *
     * @throws IllegalArgumentException when {@code contentDigest} is not {@code sha-256=:<base64>:}
     * @throws IllegalStateException when there is no active key
     */
    public Map<String, String> signDigest(String method, URI targetUri, String fencingValue, String contentDigest) {
        if (contentDigest == null || !SignatureInput.isBase64Sha256(contentDigest, DIGEST_PREFIX)) {
            throw new IllegalArgumentException("a Content-Digest is sha-256=:<base64>:, got " + contentDigest);
        }
        return signed(method, targetUri, fencingValue, contentDigest);
    }

    private Map<String, String> signed(String method, URI targetUri, String fencingValue, String contentDigest) {
        String keyId = keys.activeKeyId().orElseThrow(() -> new IllegalStateException(
                "request signatures need an active signing key"));
        long created = clock.instant().getEpochSecond();
        byte[] nonce = new byte[18];
        RANDOM.get().nextBytes(nonce);
        String params = "(\"@method\" \"@target-uri\" \"" + coveredHeader + "\" \"content-digest\")"
                + ";created=" + created + ";expires=" + (created + lifetime.toSeconds()) + ";keyid=\"" + keyId
                + "\";nonce=\"" + Base64.getUrlEncoder().withoutPadding().encodeToString(nonce) + "\";alg=\"hmac-sha256\"";
        String digest = contentDigest;
        String base = base(method, targetUri.toString(), fencingValue, digest, params);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(headerName, fencingValue);
        headers.put(CONTENT_DIGEST, digest);
        headers.put(SIGNATURE_INPUT, LABEL + "=" + params);
        headers.put(SIGNATURE, LABEL + "=:" + Base64.getEncoder().encodeToString(keys.hmac(keyId).mac(base)) + ":");
        return headers;
    }

    /** Whether {@code request} carries a request signature (which then must verify). */
    public static boolean present(InboundRequest request) {
        return present(request, request.header(SIGNATURE_INPUT));
    }

    /** As {@link #present(InboundRequest)}, the request's Signature-Input values read already. */
    static boolean present(InboundRequest request, List<String> inputValues) {
        return !inputValues.isEmpty() || !request.header(SIGNATURE).isEmpty();
    }

    /**
     * A verified signature: the key, the nonce, when its signer says it was made ({@code created}, the signer's
     * clock) and until when it is valid.
     */
    public record Verified(String keyId, String nonce, Instant created, Instant expires) {

        /** Without a known creation time: taken as early as the longest accepted lifetime allows. */
        public Verified(String keyId, String nonce, Instant expires) {
            this(keyId, nonce, earliestCreation(expires), expires);
        }
    }

    /**
     * The earliest creation time of an accepted signature that may be used until {@code expires} (its expiry plus the
     * clock skew, as {@link Verified#expires()} is): for a nonce whose signature's creation time is not known.
     */
    static Instant earliestCreation(Instant expires) {
        return expires.minus(MAX_LIFETIME).minus(CLOCK_SKEW);
    }

    /**
     * Verifies the request signature of {@code request}, whose fencing header is {@code fencingValue}.
     *
     * @throws FenceHeaderException malformed (not this profile) or untrusted (unknown key, expired,
     *     digest or signature mismatch)
     */
    public Verified verify(InboundRequest request, String fencingValue) {
        return verify(request, fencingValue, request.header(SIGNATURE_INPUT));
    }

    /** As {@link #verify(InboundRequest, String)}, the request's Signature-Input values read already. */
    Verified verify(InboundRequest request, String fencingValue, List<String> inputValues) {
        String input = single(inputValues, SIGNATURE_INPUT);
        String signature = single(request.header(SIGNATURE), SIGNATURE);
        SignatureInput in = SignatureInput.parse(input);
        if (in == null) {
            throw FenceHeaderException.malformed("Signature-Input is not fg=(\"@method\" \"@target-uri\" \""
                    + coveredHeader + "\" \"content-digest\");created=;expires=;keyid=;nonce=;"
                    + "alg=\"hmac-sha256\"");
        }
        if (!in.header().equals(coveredHeader)) {
            throw FenceHeaderException.untrusted("the request signature does not cover the " + headerName + " header");
        }
        if (!SignatureInput.isBase64Sha256(signature, SIGNATURE_PREFIX)) {
            throw FenceHeaderException.malformed("Signature is fg=:<base64 HMAC-SHA256>:");
        }
        long created = in.created();
        long expires = in.expires();
        Instant now = clock.instant();
        if (expires <= created || expires - created > MAX_LIFETIME.toSeconds()) {
            throw FenceHeaderException.untrusted("the request signature's lifetime is not between 1 s and " + MAX_LIFETIME);
        }
        if (now.getEpochSecond() + CLOCK_SKEW.toSeconds() < created) {
            throw FenceHeaderException.untrusted("the request signature was created in the future (" + created + ")");
        }
        if (now.getEpochSecond() - CLOCK_SKEW.toSeconds() > expires) {
            throw FenceHeaderException.untrusted("the request signature expired at " + Instant.ofEpochSecond(expires));
        }
        String keyId = in.keyId();
        Hmac key = keys.hmac(keyId);
        if (key == null) {
            throw FenceHeaderException.untrusted("the request is signed with unknown key '" + keyId + "'");
        }
        String digest = single(request.header(CONTENT_DIGEST), CONTENT_DIGEST);
        if (!SignatureInput.isBase64Sha256(digest, DIGEST_PREFIX)) {
            throw FenceHeaderException.malformed("Content-Digest is sha-256=:<base64>:");
        }
        if (!MessageDigest.isEqual(digest.getBytes(StandardCharsets.US_ASCII),
                contentDigest(request.body()).getBytes(StandardCharsets.US_ASCII))) {
            throw FenceHeaderException.untrusted("the body does not match its Content-Digest");
        }
        String params = input.substring(LABEL.length() + 1);
        String base = base(request.method(), request.targetUri().toString(), fencingValue, digest, params);
        byte[] expected = key.mac(base);
        if (!MessageDigest.isEqual(expected, Base64.getDecoder().decode(
                signature.substring(SIGNATURE_PREFIX.length(), signature.length() - 1)))) {
            throw FenceHeaderException.untrusted("the request signature does not match (method, target URI, "
                    + headerName + ", body or parameters differ from what was signed)");
        }
        return new Verified(keyId, in.nonce(), Instant.ofEpochSecond(created), Instant.ofEpochSecond(expires).plus(CLOCK_SKEW));
    }

    private String base(String method, String targetUri, String fencingValue, String digest, String params) {
        return "\"@method\": " + method.toUpperCase(Locale.ROOT)
                + "\n\"@target-uri\": " + targetUri
                + headerLine + fencingValue
                + "\n\"content-digest\": " + digest
                + "\n\"@signature-params\": " + params;
    }

    private static String single(List<String> values, String name) {
        if (values.size() != 1 || values.get(0).length() > 1_000) {
            throw FenceHeaderException.malformed("a request signature needs exactly one " + name + " header of at most "
                    + "1000 characters");
        }
        return values.get(0);
    }

    @Override
    public String toString() {
        return "RequestSignatures[" + keys + ", lifetime " + lifetime + "]";
    }
}
