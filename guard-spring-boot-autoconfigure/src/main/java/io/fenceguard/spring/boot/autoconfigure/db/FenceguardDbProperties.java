package io.fenceguard.spring.boot.autoconfigure.db;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code fenceguard.db.*}: the guard's own tables. */
@ConfigurationProperties(prefix = "fenceguard.db")
public class FenceguardDbProperties {

    /**
     * Whether the guard's own tables (those of fenceguard.db.features) are migrated at start-up on the
     * application's DataSource, with Flyway under their own history table fenceguard_schema_history,
     * after the application's own Flyway and before anything else that uses the database. Default: true.
     */
    private boolean migrate = true;

    /**
     * Which of the guard's tables are migrated: auto (those of the features the application uses: sql-fencing
     * with fenceguard-jdbc's fencing on, admission with a JDBC high-water store, outbox with
     * fenceguard.outbox.enabled=true), all, none, or a list of sql-fencing (fenceguard_stale, fenceguard_gate),
     * admission (fenceguard_http_high_water, fenceguard_http_nonce, fenceguard_http_idempotency), outbox
     * (fenceguard_outbox); auto may be listed with features it should add. Tables already there stay.
     * Default: auto.
     */
    private List<String> features = new ArrayList<>(List.of("auto"));

    public List<String> getFeatures() {
        return features;
    }

    public void setFeatures(List<String> features) {
        this.features = features;
    }

    /**
     * Whether to install, after the guard's migrations, the database triggers of trigger mode on every
     * table of fenceguard.jdbc.tables (PostgreSQL and MariaDB/MySQL): they refuse any write to a fenced
     * table that does not carry the token the guard set, from whatever connection, outside an audited
     * maintenance scope. Needs fenceguard.jdbc.trigger-mode=true. Default: false.
     */
    private boolean triggers = false;

    public boolean isTriggers() {
        return triggers;
    }

    public void setTriggers(boolean triggers) {
        this.triggers = triggers;
    }

    public boolean isMigrate() {
        return migrate;
    }

    public void setMigrate(boolean migrate) {
        this.migrate = migrate;
    }
}
