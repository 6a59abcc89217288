package io.fenceguard.admission;

import java.time.Duration;
import java.util.Objects;

/**
 * How long an {@link IdempotencyStore} keeps a key: one rule for every store, so that instances on different stores
 * of one backend (blocking and non-blocking, JDBC and R2DBC) agree on when a claim may be taken over and when a
 * recorded response is gone.
 */
public final class IdempotencyRetention {

    /**
     * How long a claim made outside a transaction may stay unanswered before a retry takes it over: a request whose
     * process died does not block its key for ever. Also the shortest retention.
     */
    public static final Duration IN_PROGRESS_TIMEOUT = Duration.ofMinutes(1);
    /** How long a recorded response answers retries unless a store is given another retention. */
    public static final Duration DEFAULT = Duration.ofDays(1);

    private IdempotencyRetention() {
    }

    /**
     * {@code retention}, when it is at least {@link #IN_PROGRESS_TIMEOUT}: no claim may expire or be purged while its
     * request may still be running.
     *
     * @throws IllegalArgumentException naming the minimum and the value, when it is shorter
     */
    public static Duration checked(Duration retention) {
        Objects.requireNonNull(retention, "retention");
        if (retention.compareTo(IN_PROGRESS_TIMEOUT) < 0) {
            throw new IllegalArgumentException("an idempotency retention is at least " + IN_PROGRESS_TIMEOUT
                    + " (a claim may be in progress that long), got " + retention);
        }
        return retention;
    }
}
