package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.HandlerOrder;
import io.fenceguard.admission.IdempotencyKeys;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.Problem;
import io.fenceguard.core.RefusalListener;
import io.fenceguard.admission.Verdict;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.reactor.ReactiveLeaseContext;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * What {@link FencingWebFilter} does with a verdict: refuses (and tells the listener), or runs the handler of an
 * admitted request under its fence, after its idempotency key's claim and its turn in the handler order, and ends
 * the admission when the handler is done (a failure setting its claim back, on the scheduler: that may block).
 */
final class HandlerRuns {

    private static final Logger log = LoggerFactory.getLogger(FencingWebFilter.class);

    private final InboundFence admitting;
    private final RefusalListener listener;
    private final Scheduler scheduler;
    private final HandlerOrder handlerOrder;
    /** The calls to the idempotency store, {@code null} without one. */
    private final KeyClaims keys;

    HandlerRuns(InboundFence admitting, RefusalListener listener, Scheduler scheduler, HandlerOrder handlerOrder,
            KeyClaims keys) {
        this.admitting = admitting;
        this.listener = listener;
        this.scheduler = scheduler;
        this.handlerOrder = handlerOrder;
        this.keys = keys;
    }

    Mono<Void> proceed(Verdict verdict, String fingerprint, FencedRequest fenced) {
        if (verdict.problem().isPresent()) {
            return refuse(fenced, verdict.problem().get());
        }
        Admission admission = verdict.admission().orElseThrow();
        if (fenced.key() == null) {
            return run(admission, fenced);
        }
        Fence presented = admission.presented();
        if (fingerprint == null) {
            return refuseAdmitted(fenced, admission, Problem.badIdempotencyKey(presented, IdempotencyKeys.FORM));
        }
        return keys.claim(verdict, presented, fenced.key(), fingerprint)
                .flatMap(answer -> {
                    if (answer.isEmpty()) {
                        return refuseAdmitted(fenced, admission, Problem.unavailable(presented));
                    }
                    return switch (answer.get().kind()) {
                        case FIRST -> run(admission, fenced);
                        case COMPLETED -> ended(admission, true, false, null).then(Mono.defer(() ->
                                RecordingResponse.replay(fenced.exchange().getResponse(), answer.get().response())));
                        case IN_PROGRESS -> refuseAdmitted(fenced, admission,
                                Problem.idempotencyInProgress(presented, fenced.key()));
                        case OTHER_REQUEST -> refuseAdmitted(fenced, admission,
                                Problem.idempotencyKeyReused(presented, fenced.key()));
                    };
                });
    }

    Mono<Void> refuse(FencedRequest fenced, Problem problem) {
        listener.refused(problem.refusal(fenced.method(), fenced.path()));
        return send(fenced.exchange().getResponse(), problem, fenced.instance());
    }

    /** Refuses an admitted request: its admission ended as failed first, so the client finds no mark of it. */
    private Mono<Void> refuseAdmitted(FencedRequest fenced, Admission admission, Problem problem) {
        return ended(admission, false, false, null).then(Mono.defer(() -> refuse(fenced, problem)));
    }

    /**
     * Runs the handler of an admitted request (after its turn in the handler order) under the presented fence.
     * The first request with an idempotency key answers through a {@link RecordingResponse}.
     */
    private Mono<Void> run(Admission admission, FencedRequest fenced) {
        String key = fenced.key();
        if (handlerOrder != null) {
            Optional<Problem> newerStarted = handlerOrder.enter(admission).problem();
            if (newerStarted.isPresent()) {
                return (key == null ? Mono.<Void>empty() : keys.abandon(admission.presented(), key))
                        .then(refuseAdmitted(fenced, admission, newerStarted.get()));
            }
        }
        ServerWebExchange exchange = fenced.exchange();
        exchange.getAttributes().put(FencingWebFilter.ADMISSION_ATTRIBUTE, admission);
        Lease presented = Lease.presented(admission.presented(), "http:" + FencedRequest.remote(exchange.getRequest()));
        ServerHttpResponse response = exchange.getResponse();
        AtomicBoolean unrecorded = new AtomicBoolean();
        RecordingResponse recording = key == null ? null
                : new RecordingResponse(response, (first, write) -> record(fenced, admission, first, write, unrecorded));
        ServerWebExchange handled = recording == null ? exchange : exchange.mutate().response(recording).build();
        AtomicBoolean done = new AtomicBoolean();
        // Before the answer is committed, so that a client told of a failure finds no mark of it; once only. A
        // key whose handler ran but whose response could not be recorded stays claimed: a retry must not run it.
        Function<Boolean, Mono<Void>> end = failed -> done.compareAndSet(false, true)
                ? ended(admission, !failed && succeeded(response), handlerOrder != null,
                        unrecorded.get() ? null : key) : Mono.empty();
        response.beforeCommit(() -> end.apply(false));
        // Bound for this request only: closed when it ends, as the servlet filter's scope is.
        return fenced.chain().filter(handled)
                // A handler that answered without writing: its empty response is recorded too.
                .then(Mono.defer(() -> recording == null || response.isCommitted() ? Mono.empty()
                        : recording.setComplete()))
                .contextWrite(ReactiveLeaseContext.with(presented))
                .then(Mono.defer(() -> end.apply(false)))
                .onErrorResume(e -> end.apply(true).then(Mono.error(e)))
                .doOnCancel(() -> end.apply(true).subscribe())
                .doFinally(signal -> presented.close());
    }

    /**
     * Records the first response to the request's key, then writes it; when the store cannot record it, answers
     * 503 instead: the client must not take for done what a retry would run again.
     */
    private Mono<Void> record(FencedRequest fenced, Admission admission, IdempotencyStore.RecordedResponse first,
            Mono<Void> write, AtomicBoolean unrecorded) {
        Fence presented = admission.presented();
        return keys.complete(presented, fenced.key(), first)
                .then(write)
                .onErrorResume(e -> {
                    if (fenced.exchange().getResponse().isCommitted()) {
                        return Mono.error(e);
                    }
                    log.warn("the response to idempotency key '{}' for '{}' could not be recorded; answering 503",
                            fenced.key(), presented.resource(), e);
                    unrecorded.set(true);
                    return refuse(fenced, Problem.notCommitted(presented));
                });
    }

    private static boolean succeeded(ServerHttpResponse response) {
        HttpStatusCode status = response.getStatusCode();
        return status == null || status.value() < 400;
    }

    /**
     * The request of {@code admission} is done. A failure may set its claim back in the store (on the admission
     * scheduler: that blocks; in place when there is nothing to set back), and forgets the claim of its idempotency
     * {@code key} ({@code null}: none). A success only counts down (no store call, no wait on one): in place.
     */
    private Mono<Void> ended(Admission admission, boolean succeeded, boolean entered, String key) {
        Mono<Void> end = Mono.defer(() -> {
            boolean inPlace;
            try {
                if (entered) {
                    handlerOrder.exit(admission, succeeded);
                }
            } finally {
                inPlace = admitting.handlerEndedWithoutBlocking(admission, succeeded);
            }
            return inPlace ? Mono.<Void>empty()
                    : Mono.<Void>fromRunnable(() -> admitting.handlerEnded(admission, succeeded)).subscribeOn(scheduler);
        });
        return succeeded || key == null ? end : end.then(keys.abandon(admission.presented(), key));
    }

    private static Mono<Void> send(ServerHttpResponse response, Problem problem, String instance) {
        return FencingWebFilter.send(response, problem, instance);
    }
}
