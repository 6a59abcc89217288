package io.fenceguard.proof;

import io.fenceguard.db.FenceguardMigrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * The harness's tables (migrations under {@code proof/db/<dialect>} in this module) next to
 * fenceguard's own (high-water table, stale function, HTTP high-water, from {@link FenceguardMigrations}):
 * {@code proof_cell} holds every resource's value and the count of writes it admitted, which is the
 * admission order: {@code proof_write_log} gets that count as sequence number in the same
 * transaction, under the row lock of the write. {@code proof_ledger} is the append-only ledger.
 */
public final class ProofSchema {

    /** One admitted write, in the order the database admitted it. */
    public record LogEntry(String resource, long seq, long token, String opId, long read, long written) {
    }

    /** What the database holds at the end of a run. */
    public record State(Map<String, Long> values, Map<String, List<LogEntry>> log, Map<String, Long> ledgerSums) {
    }

    /** The harness's migrations, one folder per {@link Topology.Database#dialect()}, with their own history. */
    public static final String LOCATION_ROOT = "classpath:proof/db";
    public static final String HISTORY_TABLE = "proof_schema_history";

    private ProofSchema() {
    }

    /**
     * Creates the harness's tables on a fresh database, then fenceguard's own (its migrations baseline
     * themselves beside the harness's tables, as they would beside an application's), then one cell per
     * resource, written unfenced.
     */
    public static void create(DataSource raw, Topology.Database db, List<String> resources) throws SQLException {
        String location = LOCATION_ROOT + "/" + db.dialect();
        try {
            Flyway.configure(ProofSchema.class.getClassLoader()).dataSource(raw).locations(location)
                    .table(HISTORY_TABLE).failOnMissingLocations(true).load().migrate();
        } catch (FlywayException e) {
            throw new IllegalStateException("the proof's tables could not be created from " + location + " on "
                    + db.name() + ": " + e.getMessage(), e);
        }
        FenceguardMigrations.migrate(raw);
        try (Connection c = raw.getConnection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO proof_cell (resource, value, writes) VALUES (?, 0, 0)")) {
            for (String resource : resources) {
                insert.setString(1, resource);
                insert.executeUpdate();
            }
        }
    }

    public static State read(DataSource raw) throws SQLException {
        Map<String, Long> values = new HashMap<>();
        Map<String, List<LogEntry>> log = new HashMap<>();
        Map<String, Long> sums = new HashMap<>();
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            try (ResultSet rows = s.executeQuery("SELECT resource, value FROM proof_cell")) {
                while (rows.next()) {
                    values.put(rows.getString(1), rows.getLong(2));
                }
            }
            try (ResultSet rows = s.executeQuery("SELECT resource, seq, token, op_id, value_read, value_written"
                    + " FROM proof_write_log ORDER BY resource, seq")) {
                while (rows.next()) {
                    LogEntry e = new LogEntry(rows.getString(1), rows.getLong(2), rows.getLong(3), rows.getString(4),
                            rows.getLong(5), rows.getLong(6));
                    log.computeIfAbsent(e.resource(), r -> new ArrayList<>()).add(e);
                }
            }
            try (ResultSet rows = s.executeQuery("SELECT resource, SUM(amount) FROM proof_ledger GROUP BY resource")) {
                while (rows.next()) {
                    sums.put(rows.getString(1), rows.getLong(2));
                }
            }
        }
        return new State(values, log, sums);
    }

    /** The states of several databases as one (each resource lives in exactly one). */
    public static State merge(List<State> states) {
        Map<String, Long> values = new HashMap<>();
        Map<String, List<LogEntry>> log = new HashMap<>();
        Map<String, Long> sums = new HashMap<>();
        for (State s : states) {
            values.putAll(s.values());
            log.putAll(s.log());
            sums.putAll(s.ledgerSums());
        }
        return new State(values, log, sums);
    }
}
