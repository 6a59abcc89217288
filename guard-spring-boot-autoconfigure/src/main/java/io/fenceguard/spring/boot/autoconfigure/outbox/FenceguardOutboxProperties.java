package io.fenceguard.spring.boot.autoconfigure.outbox;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of fenceguard's transactional outbox ({@code fenceguard.outbox.*}). */
@ConfigurationProperties(FenceguardOutboxProperties.PREFIX)
public class FenceguardOutboxProperties {

    public static final String PREFIX = "fenceguard.outbox";

    /**
     * Whether the outbox is wired: an OutboxWriter bean, and a relay that sends the outbox table's committed rows
     * to the broker (at least once, with the fence and an idempotency key) and deletes them once acknowledged.
     */
    private boolean enabled = false;

    /** The outbox table, created by fenceguard's migrations; optionally schema-qualified. */
    private String table = "fenceguard_outbox";

    /**
     * The broker the relay sends to: rabbit (the RabbitTemplate bean, with publisher-confirm-type=simple) or
     * kafka (the ProducerFactory bean). Empty: whichever of the two the application has.
     */
    private String broker = "";

    /** How many rows the relay sends in one transaction at most. */
    private int batchSize = 100;

    /** How long the relay waits after it drained the table. */
    private Duration pollInterval = Duration.ofMillis(500);

    /** How long the relay waits for the broker to acknowledge a message before it sends it again later. */
    private Duration sendTimeout = Duration.ofSeconds(10);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public String getBroker() {
        return broker;
    }

    public void setBroker(String broker) {
        this.broker = broker;
    }

    public int getBatchSize() {
        return batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    public Duration getPollInterval() {
        return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    public Duration getSendTimeout() {
        return sendTimeout;
    }

    public void setSendTimeout(Duration sendTimeout) {
        this.sendTimeout = sendTimeout;
    }
}
