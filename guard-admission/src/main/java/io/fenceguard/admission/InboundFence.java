package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides on inbound requests, independent of any server API: finds the fenced route, parses and
 * verifies the fencing header, checks the token against the {@link TokenBound}, and admits its fence
 * against the high-water store. Everything that is refused is refused before the store is touched,
 * except stale tokens, which the store itself recognises. Free of any server API: the servlet
 * {@code FencingFilter} (fenceguard-http-filter) and reactive adapters call {@link #check(String, String, List)}. The client side's counterpart is {@link OutboundFence}.
 */
public final class InboundFence {

    private static final Logger log = LoggerFactory.getLogger(InboundFence.class);

    private final Supplier<List<FencedRoute>> routes;
    private final HighWaterStore store;
    private final SigningKeys keys;
    private final String headerName;
    private final TokenBound bound;
    private final RequestSignatures signatures;
    private final NonceStore nonces;
    private final boolean requestSignaturesRequired;
    private final ClaimWithdrawal withdrawal;
    private final MarkHealing healing;
    private final IssuedTokenBound issuedBound;

    private InboundFence(Supplier<List<FencedRoute>> routes, HighWaterStore store, SigningKeys keys, String headerName,
            TokenBound bound, RequestSignatures signatures, NonceStore nonces, boolean requestSignaturesRequired,
            ClaimWithdrawal withdrawal, MarkHealing healing, IssuedTokenBound issuedBound) {
        this.routes = routes;
        this.store = store;
        this.keys = keys;
        this.headerName = headerName;
        this.bound = bound;
        this.signatures = signatures;
        this.nonces = nonces;
        this.requestSignaturesRequired = requestSignaturesRequired;
        this.withdrawal = withdrawal;
        this.healing = healing;
        this.issuedBound = issuedBound;
    }

    public static InboundFence of(List<FencedRoute> routes, HighWaterStore store, SigningKeys keys) {
        List<FencedRoute> copy = List.copyOf(routes);
        return of(() -> copy, store, keys, FenceHeader.DEFAULT_NAME);
    }

    /**
     * Routes looked up when needed (a framework may only know its annotated endpoints once started);
     * {@code headerName} is the fencing header's name.
     */
    public static InboundFence of(Supplier<List<FencedRoute>> routes, HighWaterStore store, SigningKeys keys,
            String headerName) {
        return new InboundFence(Objects.requireNonNull(routes, "routes"), Objects.requireNonNull(store, "store"),
                Objects.requireNonNull(keys, "keys"), FenceHeader.requireHeaderName(headerName), TokenBound.clockFloor(),
                null, null, false, null, null, null);
    }

    /**
     * This fence verifying request signatures ({@link RequestSignatures}, with the same keys) and
     * remembering their nonces in {@code nonces}, so that a signed request is admitted once. With
     * {@code required}, every signed request must be signed this way: a compact signed header (which
     * can be replayed with another request while its token is current) is refused; without it, compact
     * signed headers are admitted too (while callers move to request signatures). When the high-water
     * store is a {@link SignedAdmissionStore} and {@code nonces} is its backend, nonce and mark are decided
     * in one call.
     */
    public InboundFence withRequestSignatures(NonceStore nonces, boolean required) {
        return new InboundFence(routes, store, keys, headerName, bound, RequestSignatures.of(keys, headerName),
                Objects.requireNonNull(nonces, "nonces"), required, withdrawal, healing, issuedBound);
    }

    /** Whether request signatures are verified (then a fenced request's body is needed: {@link #check(InboundRequest)}). */
    public boolean verifiesRequestSignatures() {
        return signatures != null;
    }

    /**
     * This fence with {@code bound} instead of the default {@link TokenBound#clockFloor()}: tokens above
     * its ceiling are refused (403, {@code urn:fenceguard:token-out-of-range}) before the store is touched; tokens on
     * a durable epoch need {@link TokenBound#epochs}.
     */
    public InboundFence withTokenBound(TokenBound bound) {
        return new InboundFence(routes, store, keys, headerName, Objects.requireNonNull(bound, "bound"), signatures,
                nonces, requestSignaturesRequired, withdrawal, healing, issuedBound);
    }

    /**
     * This fence checking presented tokens against what the lock store granted per resource ({@code issued}): a
     * token above the highest granted for its resource is refused (403, out of range) before it sets any mark, the
     * store asked only for a token above the highest already seen; and where the store could not tell (a lost
     * counter), a mark that turns out above every granted token is set back at the first refusal of a holder
     * ({@link MarkHealing}; the high-water store must support {@link HighWaterStore#reset}). Below the
     * {@link TokenBound}'s ceiling this is what keeps a token that was never granted from locking holders out.
     */
    public InboundFence withIssuedTokens(IssuedTokens issued) {
        return new InboundFence(routes, store, keys, headerName, bound, signatures, nonces, requestSignaturesRequired,
                withdrawal, MarkHealing.of(store, issued), IssuedTokenBound.of(issued));
    }

    /** The healing of unminted marks ({@link #withIssuedTokens}), if any. */
    public java.util.Optional<MarkHealing> markHealing() {
        return java.util.Optional.ofNullable(healing);
    }

    /**
     * This fence setting a claim back when no request admitted under it succeeded: a request whose token claimed
     * the resource's mark and whose handler then failed leaves no mark, so an older, valid token is admitted
     * afterwards as if the failed request had never come. The caller reports the end of every request this fence
     * admitted, with {@link #handlerEnded}; the mark is set back ({@link HighWaterStore#reset}, from the claimed
     * token to the mark it replaced) when the last request of this instance admitted with the same fence ends
     * and none of them succeeded, and only if no newer token came meanwhile. Stores that do not tell the mark a
     * claim replaced (PostgreSQL outside the handler's transaction) or cannot reset keep the mark.
     *
     * <p>Per instance: a request with the same token admitted on another instance of a shared store before the
     * mark is set back is not seen here, and the mark then goes back below its token. Where that matters, admit
     * in the handler's transaction ({@code JdbcHighWaterStore.joiningTransactions}), where a claim holds its row
     * until the handler is done and a failed one rolls back; there, do not set claims back here.
     */
    public InboundFence withdrawingFailedClaims() {
        if (withdrawal != null) {
            return this;
        }
        return new InboundFence(routes, store, keys, headerName, bound, signatures, nonces, requestSignaturesRequired,
                new ClaimWithdrawal(store), healing, issuedBound);
    }

    /**
     * This fence answering requests that present the same fence together ({@link CoalescingHighWaterStore}):
     * those arriving while the store is asked about their fence are answered by one further call. For servers
     * whose requests wait on the store off their I/O threads, where many calls of one lease holder overlap. Not
     * for a store in memory, which answers faster than requests could be grouped, nor for one admitting in its
     * callers' transactions ({@link TransactionJoiningStore}, as {@code JdbcHighWaterStore.joiningTransactions}),
     * where one request's rollback would take back the admission of the others: this fence as it is then.
     */
    public InboundFence coalescingAdmissions() {
        HighWaterStore backend = store.backend();
        if (store instanceof CoalescingHighWaterStore || backend instanceof InMemoryHighWaterStore
                || backend instanceof TransactionJoiningStore joining && joining.joinsTransactions()) {
            return this;
        }
        return new InboundFence(routes, CoalescingHighWaterStore.of(store), keys, headerName, bound, signatures, nonces,
                requestSignaturesRequired, withdrawal, healing, issuedBound);
    }

    /** Whether claims of failed requests are set back ({@link #withdrawingFailedClaims}). */
    public boolean withdrawsFailedClaims() {
        return withdrawal != null;
    }

    /**
     * The request {@code admission} (from this fence's {@link #check}) is done: {@code succeeded} when its
     * handler answered below 400 without an exception, so that what it did stands. Call it once for every
     * admitted request, also for one refused after its admission; it may call the store, so it blocks.
     */
    public void handlerEnded(Admission admission, boolean succeeded) {
        if (withdrawal != null) {
            withdrawal.ended(admission.presented(), succeeded);
        }
    }

    public TokenBound tokenBound() {
        return bound;
    }

    public HighWaterStore store() {
        return store;
    }

    public String headerName() {
        return headerName;
    }

    /** The first route fencing the request and its path variables. */
    public Optional<Map.Entry<FencedRoute, Map<String, String>>> route(String method, String path) {
        for (FencedRoute route : routes.get()) {
            Optional<Map<String, String>> variables = route.match(method, path);
            if (variables.isPresent()) {
                return Optional.of(Map.entry(route, variables.get()));
            }
        }
        return Optional.empty();
    }

    /** The verdict on a request with these values of the fencing header (each occurrence one element). */
    public Verdict check(String method, String path, List<String> headerValues) {
        Optional<Map.Entry<FencedRoute, Map<String, String>>> route = route(method, path);
        if (route.isEmpty()) {
            return Verdict.notFenced();
        }
        return check(route.get().getKey().resource(), route.get().getValue(), headerValues);
    }

    /** The verdict on a whole request: like {@link #check(String, String, List)}, verifying request signatures. */
    public Verdict check(InboundRequest request) {
        Optional<Map.Entry<FencedRoute, Map<String, String>>> route = route(request.method(), request.path());
        if (route.isEmpty()) {
            return Verdict.notFenced();
        }
        return check(route.get().getKey().resource(), route.get().getValue(), request.header(headerName), request, null);
    }

    /**
     * The verdict on a whole request known to be fenced by {@code resource} over {@code variables} and carrying the
     * idempotency key {@code key}, whose request has {@code fingerprint}: like {@link #check(ResourceTemplate, Map,
     * InboundRequest)}. When {@code keys} is this fence's store's backend and that store decides admission and
     * claim together ({@link IdempotentAdmissionStore}), the key is claimed with the admission, in one call, and an
     * admitted verdict carries the claim ({@link Verdict#claim()}); such a request is not coalesced with others of
     * its fence (its claim is its own). Otherwise the verdict carries no claim, and the caller claims the key after
     * the admission.
     */
    public Verdict check(ResourceTemplate resource, Map<String, String> variables, InboundRequest request,
            IdempotencyStore keys, String key, String fingerprint) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        HighWaterStore deciding = store instanceof CoalescingHighWaterStore coalescing ? coalescing.store() : store;
        KeyRequest keyed = deciding instanceof IdempotentAdmissionStore claiming && keys != null
                && keys == deciding.backend() ? new KeyRequest(claiming, key, fingerprint) : null;
        return check(resource, variables, request.header(headerName), request, keyed);
    }

    /** An idempotency key to claim with the admission, by the store that decides both. */
    private record KeyRequest(IdempotentAdmissionStore store, String key, String fingerprint) {
    }

    /**
     * The verdict on a whole request known to be fenced by {@code resource} over {@code variables} (from
     * {@link #route}): like {@link #check(InboundRequest)}, for a caller that found the route already.
     */
    public Verdict check(ResourceTemplate resource, Map<String, String> variables, InboundRequest request) {
        return check(resource, variables, request.header(headerName), request, null);
    }

    /** The verdict on a request known to be fenced by {@code resource} over {@code variables}. */
    public Verdict check(ResourceTemplate resource, Map<String, String> variables, List<String> headerValues) {
        return check(resource, variables, headerValues, null, null);
    }

    private Verdict check(ResourceTemplate resource, Map<String, String> variables, List<String> headerValues,
            InboundRequest request, KeyRequest keyed) {
        ResourceName expected;
        try {
            expected = resource.resolve(variables).orElse(null);
        } catch (FenceHeaderException e) {
            return Verdict.refused(Problem.malformed(null, e.getMessage()));
        }
        if (headerValues == null || headerValues.isEmpty()) {
            return Verdict.refused(Problem.missing(expected, headerName));
        }
        if (headerValues.size() > 1) {
            return Verdict.refused(Problem.malformed(expected, "the " + headerName + " header occurs "
                    + headerValues.size() + " times; send it once"));
        }
        FenceHeader header;
        try {
            header = FenceHeader.parse(headerValues.get(0));
        } catch (FenceHeaderException e) {
            return Verdict.refused(Problem.malformed(expected, e.getMessage()));
        }
        Fence presented = header.fence();
        RequestSignatures.Verified signed = null;
        try {
            if (signatures != null && request != null && RequestSignatures.present(request)) {
                if (header.isSigned()) {
                    throw FenceHeaderException.malformed("a request-signed request carries the unsigned " + headerName
                            + " header, not a compact signature too");
                }
                signed = signatures.verify(request, headerValues.get(0));
            } else if (requestSignaturesRequired) {
                throw FenceHeaderException.untrusted("this endpoint requires a request signature (Signature-Input, "
                        + "Signature and Content-Digest headers, RFC 9421)");
            } else {
                keys.verify(header);
            }
        } catch (FenceHeaderException e) {
            return Verdict.refused(e.kind() == FenceHeaderException.Kind.MALFORMED
                    ? Problem.malformed(presented.resource(), e.getMessage()) : Problem.untrusted(presented, e.getMessage()));
        }
        if (expected != null && !expected.equals(presented.resource())) {
            return Verdict.refused(Problem.untrusted(presented, "the token was issued for '"
                    + presented.resource() + "', not for this endpoint's resource '" + expected + "'"));
        }
        try {
            if (!bound.allows(presented.token())) {
                return Verdict.refused(Problem.outOfRange(presented, bound.highestAdmitted()));
            }
        } catch (RuntimeException e) {
            log.warn("token bound for '{}' could not be read; refusing the request", presented.resource(), e);
            return Verdict.refused(Problem.unavailable(presented));
        }
        if (issuedBound != null) {
            try {
                Optional<FencingToken> granted = issuedBound.exceeded(presented);
                if (granted.isPresent()) {
                    return Verdict.refused(Problem.notGranted(presented, granted.get()));
                }
            } catch (RuntimeException e) {
                log.warn("the lock store could not tell what it granted for '{}'; refusing the request",
                        presented.resource(), e);
                return Verdict.refused(Problem.unavailable(presented));
            }
        }
        String nonce = signed == null ? null : signed.keyId() + ":" + signed.nonce();
        // Nonce and mark decided in one call where the store keeps this fence's nonces and can.
        boolean nonceWithAdmission = signed != null && nonces == store.backend()
                && (keyed != null || store instanceof SignedAdmissionStore);
        if (signed != null && !nonceWithAdmission) {
            try {
                if (!nonces.firstUse(nonce, signed.expires())) {
                    return Verdict.refused(Problem.replayed(presented));
                }
            } catch (RuntimeException e) {
                log.warn("nonce check for '{}' failed; refusing the request", presented.resource(), e);
                return Verdict.refused(Problem.unavailable(presented));
            }
        }
        // Counted for withdrawal from before the call, so that a failed handler's claim is set back.
        if (withdrawal != null) {
            withdrawal.arriving(presented);
        }
        Admission admission;
        IdempotencyStore.Claim claim = null;
        try {
            if (keyed != null) {
                IdempotentAdmissionStore.ClaimedAdmission answer = keyed.store().admitClaiming(presented,
                        nonceWithAdmission ? new SignedAdmissionStore.Nonce(nonce, signed.created(), signed.expires()) : null,
                        keyed.key(), keyed.fingerprint());
                admission = answer.admission();
                claim = answer.claim();
                if (healing != null && admission != null && !admission.admitted() && healing.setBack(admission)) {
                    // the nonce was recorded with the first call
                    answer = keyed.store().admitClaiming(presented, null, keyed.key(), keyed.fingerprint());
                    admission = answer.admission();
                    claim = answer.claim();
                }
            } else if (nonceWithAdmission) {
                admission = ((SignedAdmissionStore) store).admit(presented,
                        new SignedAdmissionStore.Nonce(nonce, signed.created(), signed.expires())).orElse(null);
            } else {
                admission = store.admit(presented);
            }
            if (healing != null && keyed == null && admission != null && !admission.admitted()) {
                admission = healing.heal(admission);
            }
        } catch (RuntimeException e) {
            if (withdrawal != null) {
                withdrawal.ended(presented, false);
            }
            log.warn("fencing check for '{}' failed; refusing the request", presented.resource(), e);
            return Verdict.refused(Problem.unavailable(presented));
        }
        if (admission == null) {
            if (withdrawal != null) {
                withdrawal.ended(presented, false);
            }
            return Verdict.refused(Problem.replayed(presented));
        }
        return decided(presented, admission, claim);
    }

    /** The verdict on the store's {@code admission}, told to the withdrawal of failed claims. */
    private Verdict decided(Fence presented, Admission admission, IdempotencyStore.Claim claim) {
        if (withdrawal != null) {
            if (admission.admitted()) {
                withdrawal.admitted(admission);
            } else {
                withdrawal.ended(presented, false);
            }
        }
        return admission.admitted() ? Verdict.admitted(admission, claim) : Verdict.refused(Problem.stale(admission));
    }

    @Override
    public String toString() {
        return "InboundFence[" + store + ", " + keys + ", header " + headerName + "]";
    }
}
