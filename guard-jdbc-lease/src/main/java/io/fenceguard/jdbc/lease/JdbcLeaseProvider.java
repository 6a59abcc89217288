package io.fenceguard.jdbc.lease;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.spi.AbstractLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Leases in a database table through plain JDBC (PostgreSQL, MariaDB, MySQL; H2 for tests), for deployments without
 * Redis. One row per resource holds the holder, the token and the expiry:
 * <ul>
 *   <li>acquire inserts the row or takes it over when it is free, expired or already this holder's, in
 *       one statement (PostgreSQL) or one short transaction, setting {@code token = token + 1};</li>
 *   <li>expiry is set and judged by the database's clock only, so clients' clocks do not matter;</li>
 *   <li>release only clears the holder, never deletes the row: the token counter survives expiry and
 *       release, so tokens never go backwards (as long as nobody deletes rows of the table).</li>
 * </ul>
 * Waiting polls with a jittered, doubling pause bounded by the wait; every statement has a JDBC query
 * timeout ({@link JdbcLeaseConfig#statementTimeout()}), so one attempt can overrun the wait by at most
 * that (plus the pool's connection timeout). Renewals run on the provider's own threads.
 *
 * <p>Give it a plain (pooling) {@link DataSource}, not one bound to the application's transactions: the
 * lease statements commit on their own. Create the table with {@link JdbcLeaseSchema#create(DataSource)}
 * or the Flyway-style scripts under {@code fenceguard/db/lease/<dialect>/}.
 */
public final class JdbcLeaseProvider extends AbstractLeaseProvider {

    /** Width of the holder column. */
    static final int MAX_HOLDER = 255;

    private final DataSource dataSource;
    private final JdbcLeaseConfig config;
    private final LeaseTable table;
    private final ExecutorService renewals;
    private volatile LeaseDialect dialect;
    private volatile boolean closed;

    private JdbcLeaseProvider(DataSource dataSource, JdbcLeaseConfig config) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.config = Objects.requireNonNull(config, "config");
        this.table = new LeaseTable(config.tableName(), config.statementTimeout());
        AtomicInteger n = new AtomicInteger();
        this.renewals = Executors.newFixedThreadPool(config.renewThreads(), r -> {
            Thread t = new Thread(r, "fenceguard-jdbc-lease-renew-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    public static JdbcLeaseProvider of(DataSource dataSource) {
        return of(dataSource, JdbcLeaseConfig.defaults());
    }

    public static JdbcLeaseProvider of(DataSource dataSource, JdbcLeaseConfig config) {
        return new JdbcLeaseProvider(dataSource, config);
    }

    @Override
    protected Grant acquire(LeaseRequest request, Duration wait, long deadline) {
        checkHolder(request);
        long pause = config.minPoll().toNanos();
        while (true) {
            ensureOpen(request);
            long sentAt = System.nanoTime();
            Long token = attempt(request);
            if (token != null) {
                return new Grant(FencingToken.of(token), sentAt);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new LeaseTimeoutException(request.resource(), wait,
                        "another holder has it until it releases or its lease expires by the database's clock");
            }
            pause(request.resource(), Math.min(left, jittered(pause)));
            pause = Math.min(pause * 2, config.maxPoll().toNanos());
        }
    }

    private Long attempt(LeaseRequest request) {
        try (Connection c = dataSource.getConnection()) {
            return table.take(c, dialect(c), request);
        } catch (SQLException e) {
            if (isContention(e)) {
                return null; // a deadlock or serialization failure between takers: try again like a busy lock
            }
            throw unavailable("acquire", request, e);
        }
    }

    @Override
    public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(grant, "grant");
        try {
            ensureOpen(request);
            return CompletableFuture.supplyAsync(() -> {
                try (Connection c = dataSource.getConnection()) {
                    return table.renew(c, dialect(c), request, grant.token().value());
                } catch (SQLException e) {
                    throw new CompletionException(unavailable("renew", request, e));
                }
            }, renewals);
        } catch (RejectedExecutionException | LeaseUnavailableException e) {
            return CompletableFuture.failedFuture(e instanceof LeaseUnavailableException ? e
                    : new LeaseUnavailableException("lease provider is closed; cannot renew '" + request.resource() + "'",
                            request.resource(), e));
        }
    }

    @Override
    public boolean release(LeaseRequest request, Grant grant) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(grant, "grant");
        ensureOpen(request);
        try (Connection c = dataSource.getConnection()) {
            return table.release(c, dialect(c), request, grant.token().value());
        } catch (SQLException e) {
            throw unavailable("release", request, e);
        }
    }

    @Override
    public String describe() {
        LeaseDialect d = dialect;
        return "JdbcLeaseProvider{table=" + config.tableName() + (d == null ? "" : ", dialect=" + d.folder) + "}";
    }

    /** Stops the renewal threads (waiting up to the statement timeout for running ones); never closes the DataSource. */
    @Override
    public void close() {
        closed = true;
        renewals.shutdown();
        try {
            if (!renewals.awaitTermination(config.statementTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                renewals.shutdownNow();
            }
        } catch (InterruptedException e) {
            renewals.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private LeaseDialect dialect(Connection c) throws SQLException {
        LeaseDialect d = dialect;
        if (d == null) {
            d = LeaseDialect.of(c);
            dialect = d;
        }
        return d;
    }

    private void ensureOpen(LeaseRequest request) {
        if (closed) {
            throw new LeaseUnavailableException("lease provider " + describe() + " is closed", request.resource(), null);
        }
    }

    private static void checkHolder(LeaseRequest request) {
        if (request.holder().length() > MAX_HOLDER) {
            throw new IllegalArgumentException("holder id longer than " + MAX_HOLDER + " characters (the lease table's"
                    + " column): " + request.holder().length());
        }
    }

    private LeaseUnavailableException unavailable(String what, LeaseRequest request, SQLException e) {
        return new LeaseUnavailableException("lease table " + config.tableName() + " failed to " + what + " '"
                + request.resource() + "': " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", request.resource(), e);
    }

    /** Serialization failure (40001, also MySQL's deadlock) or PostgreSQL's deadlock (40P01). */
    private static boolean isContention(SQLException e) {
        String state = e.getSQLState();
        return "40001".equals(state) || "40P01".equals(state);
    }

    private static long jittered(long nanos) {
        return nanos / 2 + ThreadLocalRandom.current().nextLong(nanos + 1);
    }


}
