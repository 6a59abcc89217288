package io.fenceguard.spring.boot.autoconfigure.jdbc.lease;

import io.fenceguard.jdbc.lease.JdbcLeaseConfig;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * {@code fenceguard.jdbc-lease.*}: leases in a database table ({@code fenceguard.lease.store=jdbc}). The former
 * prefix {@code fenceguard.jdbc-lock.*} is still bound, below the new one, and reported deprecated in the
 * configuration metadata.
 */
@ConfigurationProperties(FenceguardJdbcLeaseProperties.PREFIX)
public class FenceguardJdbcLeaseProperties {

    public static final String PREFIX = "fenceguard.jdbc-lease";
    /** The prefix before the store's properties were named for what it grants: leases. */
    public static final String DEPRECATED_PREFIX = "fenceguard.jdbc-lock";

    /** The lease table, optionally schema-qualified. Never delete its rows: the token counters live in them. */
    private String tableName = "fenceguard_lease";
    /** Create the table at startup when it is missing (off when migrations create it). */
    private boolean createTable = true;
    /** JDBC query timeout of every lease statement (whole seconds, at least 1 s). */
    private Duration statementTimeout = Duration.ofSeconds(5);
    /** First pause of a waiter between polls; doubles with jitter. */
    private Duration minPoll = Duration.ofMillis(10);
    /** Longest pause of a waiter between polls. */
    private Duration maxPoll = Duration.ofMillis(250);
    /** Threads that run renewals. */
    private int renewThreads = 2;

    /** Bound from {@code environment}: the former prefix first, so that a key under the new one wins. */
    public static FenceguardJdbcLeaseProperties bind(Environment environment) {
        Binder binder = Binder.get(environment);
        FenceguardJdbcLeaseProperties properties = new FenceguardJdbcLeaseProperties();
        binder.bind(DEPRECATED_PREFIX, Bindable.ofInstance(properties));
        binder.bind(PREFIX, Bindable.ofInstance(properties));
        return properties;
    }

    public JdbcLeaseConfig toJdbcLeaseConfig() {
        try {
            return JdbcLeaseConfig.builder().tableName(tableName).statementTimeout(statementTimeout)
                    .minPoll(minPoll).maxPoll(maxPoll).renewThreads(renewThreads).build();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("invalid " + PREFIX + ".* properties: " + e.getMessage(), e);
        }
    }

    public String getTableName() {
        return tableName;
    }

    public void setTableName(String tableName) {
        this.tableName = tableName;
    }

    public boolean isCreateTable() {
        return createTable;
    }

    public void setCreateTable(boolean createTable) {
        this.createTable = createTable;
    }

    public Duration getStatementTimeout() {
        return statementTimeout;
    }

    public void setStatementTimeout(Duration statementTimeout) {
        this.statementTimeout = statementTimeout;
    }

    public Duration getMinPoll() {
        return minPoll;
    }

    public void setMinPoll(Duration minPoll) {
        this.minPoll = minPoll;
    }

    public Duration getMaxPoll() {
        return maxPoll;
    }

    public void setMaxPoll(Duration maxPoll) {
        this.maxPoll = maxPoll;
    }

    public int getRenewThreads() {
        return renewThreads;
    }

    public void setRenewThreads(int renewThreads) {
        this.renewThreads = renewThreads;
    }
}
