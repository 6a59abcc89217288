package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link InboundFence} checks before it asks the store, one step each: the endpoint's resource, the fencing
 * header's form, its signature (compact or the request's), its resource, the token bound and the tokens the lock
 * store granted. A step that refuses throws {@link Refused} with the problem to answer.
 */
final class RequestChecks {

    private static final Logger log = LoggerFactory.getLogger(RequestChecks.class);

    private final SigningKeys keys;
    private final String headerName;
    private final TokenBound bound;
    private final RequestSignatures signatures;
    private final boolean requestSignaturesRequired;
    private final IssuedTokenBound issuedBound;

    RequestChecks(SigningKeys keys, String headerName, TokenBound bound, RequestSignatures signatures,
            boolean requestSignaturesRequired, IssuedTokenBound issuedBound) {
        this.keys = keys;
        this.headerName = headerName;
        this.bound = bound;
        this.signatures = signatures;
        this.requestSignaturesRequired = requestSignaturesRequired;
        this.issuedBound = issuedBound;
    }

    /** A refusal before the store is asked. Without a stack trace: it is an answer, not a failure. */
    static final class Refused extends Exception {

        private final transient Problem problem;

        Refused(Problem problem) {
            super(problem.detail(), null, false, false);
            this.problem = problem;
        }

        Problem problem() {
            return problem;
        }
    }

    /** A request that passed: its fence and, when request-signed, its signature's nonce. */
    record Checked(Fence presented, SignedAdmissionStore.Nonce nonce) {
    }

    Checked check(ResourceTemplate resource, Map<String, String> variables, List<String> headerValues,
            InboundRequest request) throws Refused {
        ResourceName expected = expectedResource(resource, variables);
        String value = singleHeader(expected, headerValues);
        FenceHeader header = parse(expected, value);
        Fence presented = header.fence();
        RequestSignatures.Verified signed = verifySignature(header, value, request);
        requireResource(expected, presented);
        requireWithinBound(presented);
        requireGranted(presented);
        return new Checked(presented, signed == null ? null
                : new SignedAdmissionStore.Nonce(signed.keyId() + ":" + signed.nonce(), signed.created(), signed.expires()));
    }

    /** The resource the endpoint's variables name; {@code null} when the template leaves it to the token. */
    private static ResourceName expectedResource(ResourceTemplate resource, Map<String, String> variables)
            throws Refused {
        try {
            return resource.resolve(variables).orElse(null);
        } catch (FenceHeaderException e) {
            throw new Refused(Problem.malformed(null, e.getMessage()));
        }
    }

    private String singleHeader(ResourceName expected, List<String> headerValues) throws Refused {
        if (headerValues == null || headerValues.isEmpty()) {
            throw new Refused(Problem.missing(expected, headerName));
        }
        if (headerValues.size() > 1) {
            throw new Refused(Problem.malformed(expected, "the " + headerName + " header occurs "
                    + headerValues.size() + " times; send it once"));
        }
        return headerValues.get(0);
    }

    private static FenceHeader parse(ResourceName expected, String value) throws Refused {
        try {
            return FenceHeader.parse(value);
        } catch (FenceHeaderException e) {
            throw new Refused(Problem.malformed(expected, e.getMessage()));
        }
    }

    /** The request's signature when it carries one, else {@code null} once the compact signature is verified. */
    private RequestSignatures.Verified verifySignature(FenceHeader header, String value, InboundRequest request)
            throws Refused {
        Fence presented = header.fence();
        try {
            // Signature-Input read once: whether the request is request-signed, and then its value.
            List<String> input = signatures == null || request == null ? null
                    : request.header(RequestSignatures.SIGNATURE_INPUT);
            if (input != null && RequestSignatures.present(request, input)) {
                if (header.isSigned()) {
                    throw FenceHeaderException.malformed("a request-signed request carries the unsigned " + headerName
                            + " header, not a compact signature too");
                }
                return signatures.verify(request, value, input);
            }
            if (requestSignaturesRequired) {
                throw FenceHeaderException.untrusted("this endpoint requires a request signature (Signature-Input, "
                        + "Signature and Content-Digest headers, RFC 9421)");
            }
            keys.verify(header);
            return null;
        } catch (FenceHeaderException e) {
            throw new Refused(e.kind() == FenceHeaderException.Kind.MALFORMED
                    ? Problem.malformed(presented.resource(), e.getMessage()) : Problem.untrusted(presented, e.getMessage()));
        }
    }

    private static void requireResource(ResourceName expected, Fence presented) throws Refused {
        if (expected != null && !expected.equals(presented.resource())) {
            throw new Refused(Problem.untrusted(presented, "the token was issued for '"
                    + presented.resource() + "', not for this endpoint's resource '" + expected + "'"));
        }
    }

    private void requireWithinBound(Fence presented) throws Refused {
        Problem outOfRange;
        try {
            outOfRange = bound.allows(presented.token()) ? null : Problem.outOfRange(presented, bound.highestAdmitted());
        } catch (RuntimeException e) {
            log.warn("token bound for '{}' could not be read; refusing the request", presented.resource(), e);
            throw new Refused(Problem.unavailable(presented));
        }
        if (outOfRange != null) {
            throw new Refused(outOfRange);
        }
    }

    private void requireGranted(Fence presented) throws Refused {
        if (issuedBound == null) {
            return;
        }
        Optional<FencingToken> granted;
        try {
            granted = issuedBound.exceeded(presented);
        } catch (RuntimeException e) {
            log.warn("the lock store could not tell what it granted for '{}'; refusing the request",
                    presented.resource(), e);
            throw new Refused(Problem.unavailable(presented));
        }
        if (granted.isPresent()) {
            throw new Refused(Problem.notGranted(presented, granted.get()));
        }
    }
}
