package io.fenceguard.admission;

import io.fenceguard.admission.internal.CoalescingHighWaterStore;
import io.fenceguard.core.Fence;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides on inbound requests, independent of any server API: finds the fenced route, parses and
 * verifies the fencing header, checks the token against the {@link TokenBound}, and admits its fence
 * against the high-water store. Everything that is refused is refused before the store is touched,
 * except stale tokens, which the store itself recognises. Free of any server API: the servlet
 * {@code FencingFilter} (fenceguard-http-filter) and reactive adapters call {@link #check(String, String, List)}.
 * The client side's counterpart is {@link OutboundFence}.
 *
 * <p>A check is two steps around the store's call: {@link #beforeStore} (every check that needs no store) and
 * {@link #afterStore} (the verdict on the store's answer). {@link #check} makes the blocking call between them;
 * a reactive server makes the store's non-blocking one ({@link #admitNonBlocking}) where the store offers it. What
 * the store can do is asked of it ({@link HighWaterStore#signedAdmissions()},
 * {@link HighWaterStore#idempotentAdmissions()}, {@link HighWaterStore#nonBlocking()},
 * {@link HighWaterStore#admissionsMayCoalesce()}), whatever decorates it.
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
    private final RequestChecks checks;

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
        this.checks = new RequestChecks(keys, headerName, bound, signatures, requestSignaturesRequired, issuedBound);
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
     * store records nonces with admissions ({@link HighWaterStore#signedAdmissions()}) and {@code nonces} is its backend, nonce and mark are decided
     * in one call.
     */
    public InboundFence withRequestSignatures(NonceStore nonces, boolean required) {
        return new InboundFence(routes, store, keys, headerName, bound, RequestSignatures.of(keys, headerName),
                Objects.requireNonNull(nonces, "nonces"), required, withdrawal, healing, issuedBound);
    }

    /** Whether {@link #beforeStore} answers without waiting for a store (no lock store asked, a bound in memory). */
    public boolean checksWithoutBlocking() {
        return issuedBound == null && bound.readsWithoutBlocking();
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
    public Optional<MarkHealing> markHealing() {
        return Optional.ofNullable(healing);
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
     * This fence answering requests that present the same fence together: those arriving while the store is
     * asked about their fence are answered by one further call. For servers whose requests wait on the store off
     * their I/O threads, where many calls of one lease holder overlap. Not where the store says its admissions may
     * not be coalesced ({@link HighWaterStore#admissionsMayCoalesce()}: in memory, in callers' transactions, or
     * coalesced already): this fence as it is then.
     */
    public InboundFence coalescingAdmissions() {
        if (!store.admissionsMayCoalesce()) {
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

    /**
     * As {@link #handlerEnded}, when that makes no store call: false, and nothing changed, when it would set a
     * failed claim back ({@link #withdrawingFailedClaims}); the caller then calls {@link #handlerEnded} where it may
     * block (off an event loop).
     */
    public boolean handlerEndedWithoutBlocking(Admission admission, boolean succeeded) {
        return withdrawal == null || withdrawal.endedWithoutSettingBack(admission.presented(), succeeded);
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
        return route(method, path).map(route -> check(route.getKey().resource(), route.getValue(), headerValues))
                .orElseGet(Verdict::notFenced);
    }

    /** The verdict on a whole request: like {@link #check(String, String, List)}, verifying request signatures. */
    public Verdict check(InboundRequest request) {
        return route(request.method(), request.path())
                .map(route -> check(route.getKey().resource(), route.getValue(), request)).orElseGet(Verdict::notFenced);
    }

    /**
     * The verdict on a whole request known to be fenced by {@code resource} over {@code variables} and carrying the
     * idempotency key {@code key}, whose request has {@code fingerprint}: like {@link #check(ResourceTemplate, Map,
     * InboundRequest)}. When {@code keys} is this fence's store's backend and that store decides admission and
     * claim together ({@link HighWaterStore#idempotentAdmissions()}), the key is claimed with the admission, in one
     * call, and an admitted verdict carries the claim ({@link Verdict#claim()}); such a request is not coalesced with
     * others of its fence (its claim is its own). Otherwise the verdict carries no claim, and the caller claims the
     * key after the admission.
     */
    public Verdict check(ResourceTemplate resource, Map<String, String> variables, InboundRequest request,
            IdempotencyStore keys, String key, String fingerprint) {
        return admit(beforeStore(resource, variables, request, keys, key, fingerprint));
    }

    /**
     * The checks before the store of a whole request carrying the idempotency key {@code key}, as
     * {@link #check(ResourceTemplate, Map, InboundRequest, IdempotencyStore, String, String)} makes them: when
     * {@code keys} is this fence's store's backend and that store decides admission and claim together, the pending
     * admission claims the key with the admission, blocking ({@link #admit(PendingAdmission)}) or, where the store
     * offers it ({@link NonBlockingAdmissionStore#idempotentAdmissions()}), not ({@link #admitNonBlocking}).
     */
    public PendingAdmission beforeStore(ResourceTemplate resource, Map<String, String> variables,
            InboundRequest request, IdempotencyStore keys, String key, String fingerprint) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        PendingAdmission.KeyRequest keyed = keys == null || keys != store.backend() ? null
                : store.idempotentAdmissions().map(claiming -> new PendingAdmission.KeyRequest(claiming, key, fingerprint))
                        .orElse(null);
        return beforeStore(resource, variables, request.header(headerName), request, keyed);
    }

    /**
     * The verdict on a whole request known to be fenced by {@code resource} over {@code variables} (from
     * {@link #route}): like {@link #check(InboundRequest)}, for a caller that found the route already.
     */
    public Verdict check(ResourceTemplate resource, Map<String, String> variables, InboundRequest request) {
        return admit(beforeStore(resource, variables, request.header(headerName), request, null));
    }

    /** The verdict on a request known to be fenced by {@code resource} over {@code variables}. */
    public Verdict check(ResourceTemplate resource, Map<String, String> variables, List<String> headerValues) {
        return admit(beforeStore(resource, variables, headerValues, null, null));
    }

    /**
     * The checks of a request known to be fenced by {@code resource} over {@code variables} that come before the
     * store is asked (the fencing header's form and signature, its resource, the token bound, the tokens granted):
     * a refusal, or what to ask the store. {@code request} ({@code null}: only the header is known) is needed to
     * verify request signatures. A caller asks the store itself, blocking ({@link #admit(PendingAdmission)}) or not
     * ({@link #admitNonBlocking}), or makes the call of its own and hands the answer to {@link #afterStore}; one of
     * them exactly once for every pending admission that is not refused already.
     */
    public PendingAdmission beforeStore(ResourceTemplate resource, Map<String, String> variables,
            List<String> headerValues, InboundRequest request) {
        return beforeStore(resource, variables, headerValues, request, null);
    }

    private PendingAdmission beforeStore(ResourceTemplate resource, Map<String, String> variables,
            List<String> headerValues, InboundRequest request, PendingAdmission.KeyRequest keyed) {
        RequestChecks.Checked checked;
        try {
            checked = checks.check(resource, variables, headerValues, request);
        } catch (RequestChecks.Refused refused) {
            return PendingAdmission.refused(refused.problem());
        }
        Fence presented = checked.presented();
        SignedAdmissionStore.Nonce nonce = checked.nonce();
        boolean nonceKeptByStore = nonce != null && nonces == store.backend();
        // Nonce and mark decided in one call where the store keeps this fence's nonces and can.
        boolean nonceWithAdmission = nonceKeptByStore && (keyed != null || store.signedAdmissions().isPresent());
        // Counted for withdrawal from before the call, so that a failed handler's claim is set back.
        if (withdrawal != null) {
            withdrawal.arriving(presented);
        }
        return PendingAdmission.asking(presented, nonce, nonceKeptByStore, nonceWithAdmission, keyed);
    }

    /** The verdict on {@code pending}, asking the store and waiting for its answer (the blocking calls). */
    public Verdict admit(PendingAdmission pending) {
        try {
            if (pending.refusal().isPresent()) {
                return pending.refusal().get();
            }
            if (pending.keyed() != null) {
                return admitClaiming(pending);
            }
            return afterStore(pending, pending.askedOf(store, nonces));
        } catch (RuntimeException e) {
            return storeFailed(pending, e);
        }
    }

    private Verdict admitClaiming(PendingAdmission pending) {
        PendingAdmission.KeyRequest keyed = pending.keyed();
        // Nonces kept apart from the marks: recorded first, as for a request without a key; a replay claims nothing.
        if (!pending.firstUseApart(nonces)) {
            return decided(pending, Optional.empty(), null);
        }
        return claimed(pending, keyed.store().admitClaiming(pending.presented(), pending.nonceForTheCall(),
                keyed.key(), keyed.fingerprint()));
    }

    /** The verdict on the store's answer to an admission with a claim; a stale one this fence may heal, healed. */
    private Verdict claimed(PendingAdmission pending, IdempotentAdmissionStore.ClaimedAdmission answer) {
        PendingAdmission.KeyRequest keyed = pending.keyed();
        Admission admission = answer.admission();
        if (healing != null && admission != null && !admission.admitted() && healing.setBack(admission)) {
            // the nonce was recorded with the first call
            answer = keyed.store().admitClaiming(pending.presented(), null, keyed.key(), keyed.fingerprint());
        }
        return decided(pending, Optional.ofNullable(answer.admission()), answer.claim());
    }

    /**
     * Whether {@link #admitNonBlocking} can decide {@code pending} without blocking: the store offers non-blocking
     * calls ({@link HighWaterStore#nonBlocking()}), and keeps the request's nonce, if any; an idempotency key to
     * claim with the admission, when they include the claim ({@link NonBlockingAdmissionStore#idempotentAdmissions()}).
     */
    public boolean admitsWithoutBlocking(PendingAdmission pending) {
        return pending.refusal().isPresent() || store.nonBlocking()
                .filter(calls -> pending.keyed() == null || calls.idempotentAdmissions().isPresent()).isPresent()
                && (pending.nonce().isEmpty() || pending.nonceKeptByStore());
    }

    /**
     * The verdict on {@code pending} from the store's non-blocking calls, for a caller on an event loop: completes on
     * the store client's thread. A stale answer this fence may heal ({@link #withIssuedTokens}) asks the lock store,
     * which blocks: on {@code blocking}, as the set-back and the admission after it.
     *
     * @throws IllegalStateException when not {@link #admitsWithoutBlocking}
     */
    public CompletionStage<Verdict> admitNonBlocking(PendingAdmission pending, Executor blocking) {
        if (pending.refusal().isPresent()) {
            return CompletableFuture.completedFuture(pending.refusal().get());
        }
        if (!admitsWithoutBlocking(pending)) {
            throw new IllegalStateException(store + " cannot decide " + pending + " without blocking");
        }
        if (pending.keyed() != null) {
            return admitClaimingNonBlocking(pending, blocking);
        }
        return pending.askedOf(store.nonBlocking().orElseThrow())
                .handle((answer, failure) -> failure != null ? CompletableFuture.completedFuture(storeFailed(pending, failure))
                        : healing != null && answer.isPresent() && !answer.get().admitted()
                        ? CompletableFuture.supplyAsync(() -> afterStore(pending, answer), blocking)
                        : CompletableFuture.completedFuture(afterStore(pending, answer)))
                .thenCompose(verdict -> verdict);
    }

    /** The admission and claim of {@code pending} by the store's non-blocking calls; healing on {@code blocking}. */
    private CompletionStage<Verdict> admitClaimingNonBlocking(PendingAdmission pending, Executor blocking) {
        PendingAdmission.KeyRequest keyed = pending.keyed();
        CompletionStage<IdempotentAdmissionStore.ClaimedAdmission> asked;
        try {
            asked = store.nonBlocking().flatMap(NonBlockingAdmissionStore::idempotentAdmissions).orElseThrow()
                    .admitClaiming(pending.presented(), pending.nonceForTheCall(), keyed.key(), keyed.fingerprint());
        } catch (RuntimeException e) {
            asked = CompletableFuture.failedFuture(e);
        }
        return asked.handle((answer, failure) -> {
                    if (failure != null) {
                        return CompletableFuture.completedFuture(storeFailed(pending, failure));
                    }
                    Admission admission = answer.admission();
                    if (healing != null && admission != null && !admission.admitted()) {
                        return CompletableFuture.supplyAsync(() -> {
                            try {
                                return claimed(pending, answer);
                            } catch (RuntimeException e) {
                                return storeFailed(pending, e);
                            }
                        }, blocking);
                    }
                    return CompletableFuture.completedFuture(decided(pending, Optional.ofNullable(admission),
                            answer.claim()));
                })
                .thenCompose(verdict -> verdict);
    }

    /**
     * The verdict on {@code pending} from the store's {@code answer} to a call the caller made itself: empty when the
     * request's nonce was used before (a replay). A stale answer this fence may heal ({@link #withIssuedTokens}) is
     * healed here, which blocks.
     */
    public Verdict afterStore(PendingAdmission pending, Optional<Admission> answer) {
        Admission admission = answer.orElse(null);
        if (healing != null && admission != null && !admission.admitted()) {
            try {
                admission = healing.heal(admission);
            } catch (RuntimeException e) {
                return storeFailed(pending, e);
            }
        }
        return decided(pending, Optional.ofNullable(admission), null);
    }

    /** The verdict on {@code pending} when the store could not answer: refused (503), failing closed. */
    public Verdict storeFailed(PendingAdmission pending, Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (withdrawal != null) {
            withdrawal.ended(pending.presented(), false);
        }
        log.warn("fencing check for '{}' failed; refusing the request", pending.presented().resource(), cause);
        return Verdict.refused(Problem.unavailable(pending.presented()));
    }

    /** The verdict on the store's answer ({@code empty}: a replayed nonce), told to the withdrawal of failed claims. */
    private Verdict decided(PendingAdmission pending, Optional<Admission> answer, IdempotencyStore.Claim claim) {
        Fence presented = pending.presented();
        if (answer.isEmpty()) {
            if (withdrawal != null) {
                withdrawal.ended(presented, false);
            }
            return Verdict.refused(Problem.replayed(presented));
        }
        Admission admission = answer.get();
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
