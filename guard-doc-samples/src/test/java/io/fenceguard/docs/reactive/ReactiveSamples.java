package io.fenceguard.docs.reactive;

import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import io.fenceguard.reactor.ReactiveLeaseContext;
import io.fenceguard.reactor.ReactiveLeases;
import io.fenceguard.reactor.r2dbc.FencedConnectionFactory;
import io.fenceguard.reactor.webflux.FencingWebFilter;
import io.fenceguard.reactor.webflux.ReactiveFencingExchangeFilterFunction;
import io.fenceguard.reactor.webflux.r2dbc.R2dbcAdmissionTransaction;
import io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.http.ResponseEntity;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The reactive guide's samples; the lease forms run in {@link ReactiveLeasesSampleTest}, the rest is compiled. */
final class ReactiveSamples {

    record Receipt(long token) {
    }

    record Row(String id, long amount) {
    }

    record Entry(String id, long amount, long token) {
    }

    record EntryBody(long amount) {
    }

    interface Ledger {
        Mono<Receipt> deposit(String id, long amount);
    }

    interface Repository {
        Flux<Row> rows(String id);
    }

    interface JdbcDao {
        int update(long id);
    }

    interface AuditStore {
        Mono<Entry> record(String id, EntryBody body, FencingToken token);
    }

    static Mono<Receipt> leases(LeaseManager leaseManager, Ledger ledger, Repository repository, JdbcDao jdbcDao) {
        // tag::reactive-leases[]
        ReactiveLeases leases = ReactiveLeases.of(leaseManager);             // Boot: a ReactiveLeases bean

        // run a Mono or Flux under a lease: acquired on subscription, released on complete, error or cancel
        Mono<Receipt> deposit = leases.withLease("account:42", Duration.ofSeconds(5),
                lease -> ledger.deposit("42", 5));                            // R2DBC and WebClient calls carry lease.token()

        // or with Reactor's own resource operators
        Flux<Row> rows = Flux.usingWhen(leases.acquire("account:42", Duration.ofSeconds(5)),
                lease -> repository.rows("42").contextWrite(ReactiveLeaseContext.with(lease)),
                leases::release);

        // anywhere downstream, on any thread
        Mono<Lease> current = ReactiveLeaseContext.current();                 // empty without one
        Mono<Lease> valid   = ReactiveLeaseContext.requireValid();            // errors with LeaseLostException once lost
        Mono<Integer> legacy = ReactiveLeaseContext.blocking(() -> jdbcDao.update(42));   // blocking code on boundedElastic,
                                                                              // with the chain's leases bound to LeaseContext
        // end::reactive-leases[]
        return deposit;
    }

    static WebFilter filter(List<FencedRoute> routes, DataSource dataSource, SigningKeys keys) {
        // tag::webflux-filter[]
        WebFilter fencing = FencingWebFilter.of(InboundFence.of(routes, JdbcHighWaterStore.of(dataSource), keys));
        // end::webflux-filter[]
        return fencing;
    }

    static final class AuditController {
        private final AuditStore audit;

        AuditController(AuditStore audit) {
            this.audit = audit;
        }

        // tag::webflux-endpoint[]
        @PostMapping("/audit/{id}")
        @FencedEndpoint(resource = "account:{id}")
        Mono<Entry> record(@PathVariable String id, @RequestBody EntryBody body) {
            return ReactiveLeaseContext.requireValid().flatMap(lease -> audit.record(id, body, lease.token()));
        }
        // end::webflux-endpoint[]
    }

    static Mono<ResponseEntity<Void>> webClient(ReactiveLeases leases, OutboundFence outboundFence) {
        // tag::webclient[]
        WebClient audit = WebClient.builder().baseUrl("http://audit.internal")
                .filter(new ReactiveFencingExchangeFilterFunction(outboundFence)).build();   // Boot: automatic
        return leases.withLease("account:42", Duration.ofSeconds(5), audit.post().uri("/audit/42").retrieve().toBodilessEntity());
        // end::webclient[]
    }

    static WebFilter idempotency(SigningKeys keys, List<FencedRoute> routes, DataSource dataSource) {
        // tag::webflux-idempotency[]
        JdbcHighWaterStore store = JdbcHighWaterStore.of(dataSource);         // or in memory, or Redis
        WebFilter fencing = FencingWebFilter.of(InboundFence.of(routes, store, keys)).withIdempotency(store);
        // end::webflux-idempotency[]
        return fencing;
    }

    static WebFilter joinedTransaction(SigningKeys keys, List<FencedRoute> routes, ConnectionFactory connectionFactory,
            ReactiveTransactionManager transactionManager) {
        // tag::webflux-r2dbc-transaction[]
        R2dbcHighWaterStore marks = R2dbcHighWaterStore.of(connectionFactory);   // the handler's factory (PostgreSQL)
        WebFilter fencing = FencingWebFilter.of(InboundFence.of(routes, marks, keys).withRequestSignatures(marks, true))
                .inTransaction(R2dbcAdmissionTransaction.of(marks, transactionManager));   // on that factory
        // end::webflux-r2dbc-transaction[]
        return fencing;
    }

    static WebFilter requestSigned(SigningKeys keys, List<FencedRoute> routes, InMemoryHighWaterStore store) {
        // tag::webclient-request-signed[]
        OutboundFence signing = OutboundFence.of(Destinations.of("http://audit.internal"), keys).withRequestSignatures();
        WebClient audit = WebClient.builder().filter(new ReactiveFencingExchangeFilterFunction(signing)).build();
        WebFilter fencing = FencingWebFilter.of(InboundFence.of(routes, store, keys).withRequestSignatures(store, true));
        // end::webclient-request-signed[]
        return audit == null ? null : fencing;
    }

    static Mono<Long> r2dbc(ConnectionFactory pool, Lease lease) {
        // tag::r2dbc[]
        ConnectionFactory fenced = FencedConnectionFactory.wrap(pool, FencingConfig.builder().fence("accounts").build());
        DatabaseClient db = DatabaseClient.create(fenced);
        return db.sql("UPDATE accounts SET balance = balance + :amount WHERE id = :id")
                .bind("amount", 5).bind("id", "42").fetch().rowsUpdated()
                .contextWrite(ReactiveLeaseContext.with(lease));        // or inside withLease / a fenced request
        // end::r2dbc[]
    }

    private ReactiveSamples() {
    }
}
