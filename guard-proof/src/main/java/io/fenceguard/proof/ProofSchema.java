package io.fenceguard.proof;

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

/**
 * The harness's tables next to fenceguard's own (gate, stale function, HTTP high-water):
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

    private ProofSchema() {
    }

    public static void create(DataSource raw, Topology.Database db, List<String> resources) throws SQLException {
        Flyway.configure().dataSource(raw).locations("classpath:db/migration/" + db.dialect())
                .table("fenceguard_proof_history").baselineOnMigrate(true).baselineVersion("0")
                .load().migrate();
        String autoId = db.dialect().equals("postgresql") ? "BIGSERIAL" : "BIGINT AUTO_INCREMENT";
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE proof_cell (resource VARCHAR(100) PRIMARY KEY, value BIGINT NOT NULL,"
                    + " writes BIGINT NOT NULL, current_token BIGINT)");
            s.execute("CREATE TABLE proof_ledger (id " + autoId + " PRIMARY KEY, resource VARCHAR(100) NOT NULL,"
                    + " amount BIGINT NOT NULL, op_id VARCHAR(80) NOT NULL)");
            s.execute("CREATE TABLE proof_write_log (resource VARCHAR(100) NOT NULL, seq BIGINT NOT NULL,"
                    + " token BIGINT NOT NULL, op_id VARCHAR(80) NOT NULL, value_read BIGINT NOT NULL,"
                    + " value_written BIGINT NOT NULL, PRIMARY KEY (resource, seq))");
        }
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
