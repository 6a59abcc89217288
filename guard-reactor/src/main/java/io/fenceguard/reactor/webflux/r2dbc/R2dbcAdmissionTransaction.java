package io.fenceguard.reactor.webflux.r2dbc;

import io.fenceguard.admission.Verdict;
import io.fenceguard.reactor.webflux.ReactiveAdmissionTransaction;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.springframework.r2dbc.connection.ConnectionFactoryUtils;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The WebFlux filter's admission joined to the handler's R2DBC transaction: the transaction is opened by
 * {@code manager} (an {@link R2dbcTransactionManager} on the store's {@code ConnectionFactory}, the one the
 * handler's {@code DatabaseClient} or repositories use), the store's mark and nonce are written on its connection,
 * and the handler runs in its Reactor Context, so that its writes join it too. A handler that fails (an error, or
 * an answer of 400 or more) leaves neither its writes, nor the mark, nor the nonce.
 */
public final class R2dbcAdmissionTransaction implements ReactiveAdmissionTransaction {

    private final R2dbcHighWaterStore store;
    private final TransactionalOperator operator;

    private R2dbcAdmissionTransaction(R2dbcHighWaterStore store, TransactionalOperator operator) {
        this.store = store;
        this.operator = operator;
    }

    /** Transactions of {@code manager} (on {@code store}'s factory), in which {@code store} admits. */
    public static R2dbcAdmissionTransaction of(R2dbcHighWaterStore store, ReactiveTransactionManager manager) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(manager, "manager");
        if (manager instanceof R2dbcTransactionManager r2dbc && r2dbc.getConnectionFactory() != store.connectionFactory()) {
            throw new IllegalArgumentException("the transaction manager's ConnectionFactory is not the store's: the "
                    + "admission would not join the handler's transaction");
        }
        return new R2dbcAdmissionTransaction(store, TransactionalOperator.create(manager));
    }

    /** Transactions of a new {@link R2dbcTransactionManager} on {@code store}'s factory. */
    public static R2dbcAdmissionTransaction of(R2dbcHighWaterStore store) {
        return of(store, new R2dbcTransactionManager(Objects.requireNonNull(store, "store").connectionFactory()));
    }

    @Override
    public Mono<Void> run(Callable<Verdict> check, Scheduler scheduler, Function<Verdict, Mono<Boolean>> rest) {
        return operator.execute(status -> ConnectionFactoryUtils.getConnection(store.connectionFactory())
                        .flatMap(connection -> Mono.fromCallable(() -> store.joining(connection, check))
                                .subscribeOn(scheduler))
                        .flatMap(rest)
                        .doOnNext(commit -> {
                            if (!commit) {
                                status.setRollbackOnly();
                            }
                        }))
                .then();
    }

    @Override
    public String toString() {
        return "R2dbcAdmissionTransaction[" + store + "]";
    }
}
