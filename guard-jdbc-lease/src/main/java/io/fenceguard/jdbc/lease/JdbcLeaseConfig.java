package io.fenceguard.jdbc.lease;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/** Settings of {@link JdbcLeaseProvider}; {@link #defaults()} suits most deployments. */
public final class JdbcLeaseConfig {

    /** An identifier, optionally schema-qualified: it is put into SQL as is, so nothing else is accepted. */
    private static final Pattern TABLE = Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final String tableName;
    private final Duration statementTimeout;
    private final Duration minPoll;
    private final Duration maxPoll;
    private final int renewThreads;

    private JdbcLeaseConfig(Builder b) {
        this.tableName = Objects.requireNonNull(b.tableName, "tableName");
        if (!TABLE.matcher(tableName).matches()) {
            throw new IllegalArgumentException("tableName must be an SQL identifier ([schema.]name of letters, digits, _),"
                    + " got '" + tableName + "'");
        }
        this.statementTimeout = positive(b.statementTimeout, "statementTimeout");
        if (statementTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
            // JDBC query timeouts are whole seconds.
            throw new IllegalArgumentException("statementTimeout must be at least 1 s, got " + statementTimeout);
        }
        this.minPoll = positive(b.minPoll, "minPoll");
        this.maxPoll = positive(b.maxPoll, "maxPoll");
        if (maxPoll.compareTo(minPoll) < 0) {
            throw new IllegalArgumentException("maxPoll (" + maxPoll + ") must not be below minPoll (" + minPoll + ")");
        }
        if (b.renewThreads < 1) {
            throw new IllegalArgumentException("renewThreads must be at least 1, got " + b.renewThreads);
        }
        this.renewThreads = b.renewThreads;
    }

    private static Duration positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + d);
        }
        return d;
    }

    public static JdbcLeaseConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The lease table (default {@code fenceguard_lease}). */
    public String tableName() {
        return tableName;
    }

    /** JDBC query timeout of each statement (default 5 s): bounds one attempt when the database hangs. */
    public Duration statementTimeout() {
        return statementTimeout;
    }

    /** First pause between attempts while another holder has the lock (default 10 ms); it doubles up to {@link #maxPoll()}. */
    public Duration minPoll() {
        return minPoll;
    }

    /** Longest pause between attempts (default 250 ms); each pause is jittered by ±50 %. */
    public Duration maxPoll() {
        return maxPoll;
    }

    /** Threads that run renewals off the callers' threads (default 2). */
    public int renewThreads() {
        return renewThreads;
    }

    public static final class Builder {
        private String tableName = "fenceguard_lease";
        private Duration statementTimeout = Duration.ofSeconds(5);
        private Duration minPoll = Duration.ofMillis(10);
        private Duration maxPoll = Duration.ofMillis(250);
        private int renewThreads = 2;

        private Builder() {
        }

        public Builder tableName(String v) {
            this.tableName = v;
            return this;
        }

        public Builder statementTimeout(Duration v) {
            this.statementTimeout = v;
            return this;
        }

        public Builder minPoll(Duration v) {
            this.minPoll = v;
            return this;
        }

        public Builder maxPoll(Duration v) {
            this.maxPoll = v;
            return this;
        }

        public Builder renewThreads(int v) {
            this.renewThreads = v;
            return this;
        }

        public JdbcLeaseConfig build() {
            return new JdbcLeaseConfig(this);
        }
    }
}
