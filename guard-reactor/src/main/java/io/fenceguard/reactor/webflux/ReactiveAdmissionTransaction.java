package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.Verdict;
import java.util.concurrent.Callable;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A transaction around a fenced request in the WebFlux filter ({@link FencingWebFilter#inTransaction}), the
 * reactive counterpart of {@code AdmissionTransaction}: the admission's store writes (the mark, the nonce) and the
 * handler's writes commit together, or roll back together. On R2DBC:
 * {@code io.fenceguard.reactor.webflux.r2dbc.R2dbcAdmissionTransaction}.
 */
@FunctionalInterface
public interface ReactiveAdmissionTransaction {

    /**
     * Runs, in one transaction, {@code check} (blocking: on {@code scheduler}, its store writes joining the
     * transaction) and then {@code rest} with its verdict, in the transaction's Reactor Context (so that the
     * handler's writes join it too); commits when {@code rest} answers {@code true}, rolls back when it answers
     * {@code false} or fails.
     */
    Mono<Void> run(Callable<Verdict> check, Scheduler scheduler, Function<Verdict, Mono<Boolean>> rest);
}
