package io.fenceguard.messaging.outbox;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.LeaseContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Appends messages to the outbox table ({@value #DEFAULT_TABLE}, created by fenceguard-db's migrations)
 * on the caller's connection, inside its business transaction: the row commits with the business write or rolls
 * back with it, so a committed write never loses its message and a rolled-back one never sends one. Each row
 * carries the fence of the lease the write runs under and a unique key; an {@link OutboxRelay} sends it after
 * the commit.
 *
 * <p>Refuses a connection in auto-commit mode: the row would commit on its own, apart from the business write.
 */
public final class OutboxWriter {

    public static final String DEFAULT_TABLE = "fenceguard_outbox";
    /** The longest key and resource name the table holds. */
    static final int MAX_KEY = 200;
    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final String table;
    private final String insert;

    private OutboxWriter(String table) {
        this.table = table;
        this.insert = "INSERT INTO " + table
                + " (resource, token, idem_key, destination, routing_key, headers, payload) VALUES (?, ?, ?, ?, ?, ?, ?)";
    }

    /** The writer on {@code table} (optionally schema-qualified). */
    public static OutboxWriter of(String table) {
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("an outbox table is an SQL identifier, optionally schema-qualified, got '"
                    + table + "'");
        }
        return new OutboxWriter(table);
    }

    public static OutboxWriter of() {
        return of(DEFAULT_TABLE);
    }

    /** The table this writer appends to. */
    public String table() {
        return table;
    }

    /**
     * Appends a message under the lease bound to this thread, with a new random key.
     *
     * @return the message's key (its {@value io.fenceguard.messaging.MessageHeaders#IDEMPOTENCY_KEY})
     * @throws io.fenceguard.core.FenceguardException when no lease is bound ({@link io.fenceguard.core.LeaseLostException}
     *         when the bound one was lost): the message would go out under no fence or a lost one
     */
    public String append(Connection connection, String destination, String routingKey, byte[] payload,
            Map<String, String> headers) {
        Fence fence = LeaseContext.requireValid().fence();
        String key = UUID.randomUUID().toString();
        append(connection, fence, key, destination, routingKey, payload, headers);
        return key;
    }

    /** As {@link #append(Connection, String, String, byte[], Map)} without headers of the application's own. */
    public String append(Connection connection, String destination, String routingKey, byte[] payload) {
        return append(connection, destination, routingKey, payload, Map.of());
    }

    /**
     * Appends a message under {@code fence} with {@code key}: a key is unique in the table, so appending one twice
     * fails (and with it the business transaction).
     */
    public void append(Connection connection, Fence fence, String key, String destination, String routingKey,
            byte[] payload, Map<String, String> headers) {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(fence, "fence");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(headers, "headers");
        if (key == null || key.isBlank() || key.length() > MAX_KEY) {
            throw new IllegalArgumentException("an outbox message's key is 1 to " + MAX_KEY + " characters, got '" + key + "'");
        }
        // empty: RabbitMQ's default exchange, which routes by queue name
        if (destination == null || destination.length() > 255 || (!destination.isEmpty() && destination.isBlank())) {
            throw new IllegalArgumentException("an outbox message's destination is a Kafka topic or a RabbitMQ exchange"
                    + " (empty: the default exchange) of at most 255 characters, got '" + destination + "'");
        }
        if (routingKey != null && routingKey.length() > 255) {
            throw new IllegalArgumentException("an outbox message's routing key is at most 255 characters");
        }
        if (fence.resource().value().length() > MAX_KEY) {
            throw new IllegalArgumentException("the outbox holds resource names of at most " + MAX_KEY
                    + " characters, got '" + fence.resource() + "'");
        }
        String encodedHeaders = OutboxHeaders.encode(headers);
        try {
            if (connection.getAutoCommit()) {
                throw new IllegalStateException("the outbox message for " + fence + " must be written in the business "
                        + "transaction, but the connection is in auto-commit mode: it would commit apart from the write");
            }
            try (PreparedStatement ps = connection.prepareStatement(insert)) {
                ps.setString(1, fence.resource().value());
                ps.setLong(2, fence.token().value());
                ps.setString(3, key);
                ps.setString(4, destination);
                ps.setString(5, routingKey);
                ps.setString(6, encodedHeaders);
                ps.setBytes(7, payload);
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw new FenceguardException("could not append the outbox message " + key + " for " + fence + " to " + table
                    + ": " + e.getMessage(), fence.resource(), fence.token(), e);
        }
    }
}
