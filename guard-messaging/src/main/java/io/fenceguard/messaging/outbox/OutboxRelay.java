package io.fenceguard.messaging.outbox;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the committed rows of the outbox table through an {@link OutboxSender}, in the order of their ids, and
 * deletes each once the broker has acknowledged it: at least once. A batch is read with
 * {@code SELECT ... FOR UPDATE SKIP LOCKED} (PostgreSQL, MySQL 8, MariaDB 10.6 and later; plain {@code FOR UPDATE}
 * elsewhere) in one transaction that holds the rows until their deletes commit, so relays on several instances
 * share the table without sending a row twice at once. A crash after a send and before the commit sends the
 * batch again: consumers apply each message once by its key ({@link io.fenceguard.messaging.MessageIdempotency}).
 *
 * <p>A failed send stops the batch (the rows after it keep their order) and is tried again at the next poll.
 * Call {@link #relayOnce()} from a scheduler of your own, or {@link #start()} a thread of the relay's own that
 * polls every {@code pollInterval} and {@link #close()} it.
 */
public final class OutboxRelay implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

    private final DataSource dataSource;
    private final OutboxSender sender;
    private final String table;
    private final int batchSize;
    private final Duration pollInterval;
    private volatile String select;
    private ScheduledExecutorService poller;
    private volatile boolean failing;

    private OutboxRelay(Builder builder) {
        this.dataSource = builder.dataSource;
        this.sender = builder.sender;
        this.table = builder.table;
        this.batchSize = builder.batchSize;
        this.pollInterval = builder.pollInterval;
    }

    /** A relay of the rows in {@code dataSource}'s outbox table through {@code sender}. */
    public static Builder builder(DataSource dataSource, OutboxSender sender) {
        return new Builder(dataSource, sender);
    }

    /**
     * Sends up to one batch of committed rows and deletes those sent.
     *
     * @return how many rows were sent; fewer than the batch size when the table is drained or a send failed
     * @throws FenceguardException when the outbox table cannot be read or written
     */
    public int relayOnce() {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                int sent = relay(connection);
                connection.commit();
                return sent;
            } catch (SQLException | RuntimeException e) {
                rollback(connection, e);
                throw e;
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new FenceguardException("the outbox relay could not read or delete rows of " + table + ": "
                    + e.getMessage(), null, null, e);
        }
    }

    private int relay(Connection connection) throws SQLException {
        List<OutboxMessage> batch = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(select(connection))) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Fence fence = Fence.of(ResourceName.of(rs.getString(2)), FencingToken.of(rs.getLong(3)));
                    batch.add(new OutboxMessage(rs.getLong(1), fence, rs.getString(4), rs.getString(5), rs.getString(6),
                            OutboxHeaders.decode(rs.getString(7)), rs.getBytes(8)));
                }
            }
        }
        List<Long> sent = new ArrayList<>(batch.size());
        for (OutboxMessage message : batch) {
            try {
                sender.send(message);
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                // the rest of the batch waits behind it, so that their order holds
                if (!failing) {
                    log.warn("outbox message {} was not acknowledged; it and the rows after it are sent again at the"
                            + " next poll: {}", message, e.toString());
                }
                failing = true;
                break;
            }
            sent.add(message.id());
        }
        if (!sent.isEmpty()) {
            try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + table + " WHERE id = ?")) {
                for (long id : sent) {
                    delete.setLong(1, id);
                    delete.addBatch();
                }
                delete.executeBatch();
            }
        }
        if (failing && sent.size() == batch.size()) {
            failing = false;
            log.info("the outbox relay sends again");
        }
        return sent.size();
    }

    private String select(Connection connection) throws SQLException {
        String sql = select;
        if (sql == null) {
            sql = "SELECT id, resource, token, idem_key, destination, routing_key, headers, payload FROM " + table
                    + " ORDER BY id LIMIT " + batchSize + (skipsLocked(connection.getMetaData()) ? " FOR UPDATE SKIP LOCKED" : " FOR UPDATE");
            select = sql;
        }
        return sql;
    }

    /** Whether the database skips rows locked by another relay instead of waiting for them. */
    static boolean skipsLocked(DatabaseMetaData meta) throws SQLException {
        String product = meta.getDatabaseProductName().toLowerCase(Locale.ROOT);
        String version = meta.getDatabaseProductVersion().toLowerCase(Locale.ROOT);
        int major = meta.getDatabaseMajorVersion();
        int minor = meta.getDatabaseMinorVersion();
        if (product.contains("postgres")) {
            return major > 9 || (major == 9 && minor >= 5);
        }
        if (product.contains("mariadb") || version.contains("mariadb")) {
            return major > 10 || (major == 10 && minor >= 6);
        }
        if (product.contains("mysql")) {
            return major >= 8;
        }
        return false;
    }

    private static void rollback(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /** Starts a thread of the relay's own that drains the table, then polls it every {@code pollInterval}. */
    public synchronized OutboxRelay start() {
        if (poller != null) {
            throw new IllegalStateException("the outbox relay on " + table + " runs already");
        }
        poller = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "fenceguard-outbox-relay");
            thread.setDaemon(true);
            return thread;
        });
        poller.scheduleWithFixedDelay(this::drain, 0, pollInterval.toMillis(), TimeUnit.MILLISECONDS);
        log.info("outbox relay on {} started: batches of {}, polled every {}", table, batchSize, pollInterval);
        return this;
    }

    private void drain() {
        try {
            while (relayOnce() == batchSize && !Thread.currentThread().isInterrupted()) {
                // a full batch: more may be waiting
            }
        } catch (RuntimeException e) {
            if (!failing) {
                log.warn("the outbox relay could not poll {}; it tries again in {}: {}", table, pollInterval, e.toString());
            }
            failing = true;
        }
    }

    /** Stops the relay's thread (after the batch it sends, if any); rows not yet sent stay for the next relay. */
    @Override
    public synchronized void close() {
        if (poller == null) {
            return;
        }
        poller.shutdown();
        try {
            if (!poller.awaitTermination(30, TimeUnit.SECONDS)) {
                poller.shutdownNow();
            }
        } catch (InterruptedException e) {
            poller.shutdownNow();
            Thread.currentThread().interrupt();
        }
        poller = null;
    }

    @Override
    public String toString() {
        return "OutboxRelay[" + table + ", batch " + batchSize + ", every " + pollInterval + "]";
    }

    /** Settings of an {@link OutboxRelay}. */
    public static final class Builder {

        private final DataSource dataSource;
        private final OutboxSender sender;
        private String table = OutboxWriter.DEFAULT_TABLE;
        private int batchSize = 100;
        private Duration pollInterval = Duration.ofMillis(500);

        private Builder(DataSource dataSource, OutboxSender sender) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.sender = Objects.requireNonNull(sender, "sender");
        }

        /** The outbox table (default {@value OutboxWriter#DEFAULT_TABLE}), as the writers' {@link OutboxWriter#table()}. */
        public Builder table(String table) {
            this.table = OutboxWriter.of(table).table();
            return this;
        }

        /** How many rows one transaction sends at most (default 100). */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1 || batchSize > 10_000) {
                throw new IllegalArgumentException("an outbox batch holds 1 to 10000 rows, got " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /** How long the relay's thread waits after it drained the table (default 500 ms). */
        public Builder pollInterval(Duration pollInterval) {
            if (pollInterval == null || pollInterval.isNegative() || pollInterval.isZero()) {
                throw new IllegalArgumentException("the outbox poll interval is positive, got " + pollInterval);
            }
            this.pollInterval = pollInterval;
            return this;
        }

        public OutboxRelay build() {
            return new OutboxRelay(this);
        }
    }
}
