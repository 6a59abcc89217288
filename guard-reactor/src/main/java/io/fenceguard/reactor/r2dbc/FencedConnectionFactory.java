package io.fenceguard.reactor.r2dbc;

import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.ClaimMode;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.sql.SqlFencePlanner;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import io.r2dbc.spi.Wrapped;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Locale;
import java.util.Objects;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Row fencing for R2DBC, with the rules of {@code FencedDataSource}: while a lease is in the Reactor
 * Context ({@code ReactiveLeaseContext}), every UPDATE, DELETE and INSERT on a fenced table is rewritten
 * by the JDBC module's planner ({@link io.fenceguard.jdbc.sql.SqlFencePlanner}) to carry the lease's
 * token as bind parameters, so the database itself refuses an older token
 * ({@link io.fenceguard.jdbc.StaleTokenException}, SQLSTATE 40F01, the statement having no effect). A write that cannot be fenced, a write without a lease and any statement under a
 * lost lease are refused with {@link io.fenceguard.jdbc.FencingRefusedException} before anything is sent.
 *
 * <p>PostgreSQL ({@code r2dbc-postgresql}, {@code $n} markers). Wrap the outermost factory, such as the
 * pool, so that every connection is fenced:
 * <pre>{@code
 * ConnectionFactory fenced = FencedConnectionFactory.wrap(pool, FencingConfig.builder().fence("accounts").build());
 * }</pre>
 * The token is bound when a statement's result is subscribed, from that subscriber's context: statements
 * built on any thread carry the lease of the chain that runs them. High-water fencing ({@code HighWaterMarks.claim},
 * {@code ClaimMode.FIRST_STATEMENT}) is JDBC-only for now; a configuration that asks for the first-statement
 * claim is refused here rather than silently not applied.
 */
public final class FencedConnectionFactory implements ConnectionFactory, Wrapped<ConnectionFactory> {

    private final ConnectionFactory delegate;
    private final SqlFencePlanner planner;

    private FencedConnectionFactory(ConnectionFactory delegate, SqlFencePlanner planner) {
        this.delegate = delegate;
        this.planner = planner;
    }

    /**
     * {@code delegate} fenced by {@code config}; a factory that is fenced already comes back as it is.
     *
     * @throws IllegalArgumentException for a database other than PostgreSQL, or {@code ClaimMode.FIRST_STATEMENT}
     */
    public static ConnectionFactory wrap(ConnectionFactory delegate, FencingConfig config) {
        Objects.requireNonNull(delegate, "delegate");
        Objects.requireNonNull(config, "config");
        if (delegate instanceof FencedConnectionFactory) {
            return delegate;
        }
        if (config.claimMode() == ClaimMode.FIRST_STATEMENT) {
            throw new IllegalArgumentException("high-water fencing (ClaimMode.FIRST_STATEMENT) is not available on R2DBC; "
                    + "row fencing is. Use ClaimMode.EXPLICIT with R2DBC");
        }
        String name = delegate.getMetadata().getName();
        SqlDialect dialect = config.dialect().orElseGet(() -> name != null
                && name.toLowerCase(Locale.ROOT).contains("postgres") ? SqlDialect.POSTGRESQL : null);
        if (dialect != SqlDialect.POSTGRESQL) {
            throw new IllegalArgumentException("R2DBC fencing supports PostgreSQL ($n bind markers); the factory is '"
                    + name + "'");
        }
        return new FencedConnectionFactory(delegate, SqlFencePlanner.of(config, dialect));
    }

    /** Whether {@code factory} is fenced. */
    public static boolean isFenced(ConnectionFactory factory) {
        return factory instanceof FencedConnectionFactory;
    }

    @Override
    public Publisher<? extends Connection> create() {
        return Mono.from(delegate.create()).map(this::fence);
    }

    @Override
    public ConnectionFactoryMetadata getMetadata() {
        return delegate.getMetadata();
    }

    @Override
    public ConnectionFactory unwrap() {
        return delegate;
    }

    private Connection fence(Connection raw) {
        return (Connection) Proxy.newProxyInstance(FencedConnectionFactory.class.getClassLoader(),
                new Class<?>[] {Connection.class, Wrapped.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "createStatement":
                            return FencedStatement.create(raw, planner, (String) args[0]);
                        case "createBatch":
                            return new FencedBatch(raw.createBatch(), planner);
                        case "unwrap":
                            if (method.getDeclaringClass() == Wrapped.class) {
                                return raw;
                            }
                            break;
                        case "toString":
                            if (args == null) {
                                return "Fenced[" + raw + "]";
                            }
                            break;
                        default:
                            break;
                    }
                    try {
                        return method.invoke(raw, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public String toString() {
        return "FencedConnectionFactory[" + delegate + "]";
    }
}
