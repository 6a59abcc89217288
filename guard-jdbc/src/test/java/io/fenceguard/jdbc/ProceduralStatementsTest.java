package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.jdbc.FencingRefusedException.Reason;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Procedural code writes under names the parser never sees (EXECUTE of a name built at run time), so
 * on a fenced connection DO blocks, CALL, JDBC call escapes and calls of routines that may write are
 * refused outside {@link Unfenced}, with and without a lease; a routine the configuration allows, and
 * reads, still run. Inside Unfenced the same statements run, which shows the refusal is what stops them.
 */
class ProceduralStatementsTest {

    private static final String RESOURCE = "jobs:procedural";

    private DataSource raw;
    private String table;

    private void setUp(SqlDialect dialect) throws Exception {
        raw = TestDatabases.of(dialect);
        table = "fg_proc_" + dialect.name().toLowerCase(Locale.ROOT);
        TestDatabases.execute(raw, "DROP TABLE IF EXISTS " + table,
                "CREATE TABLE " + table + " (id INT PRIMARY KEY, balance INT, current_token BIGINT)",
                "INSERT INTO " + table + " (id, balance) VALUES (1, 100)");
        if (dialect == SqlDialect.POSTGRESQL) {
            TestDatabases.execute(raw, "DROP PROCEDURE IF EXISTS fg_proc_set(int)",
                    "DROP FUNCTION IF EXISTS fg_proc_write(int)", "DROP FUNCTION IF EXISTS fg_proc_read()",
                    // the table name is built at run time: no parser can see it
                    "CREATE FUNCTION fg_proc_write(v int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN"
                            + " EXECUTE format('UPDATE %I SET balance = $1 WHERE id = 1', 'fg_proc_' || 'postgresql')"
                            + " USING v; RETURN v; END $$",
                    "CREATE PROCEDURE fg_proc_set(v int) LANGUAGE plpgsql AS $$ BEGIN"
                            + " EXECUTE format('UPDATE %I SET balance = $1 WHERE id = 1', 'fg_proc_' || 'postgresql')"
                            + " USING v; END $$",
                    "CREATE FUNCTION fg_proc_read() RETURNS int LANGUAGE sql STABLE AS $$ SELECT 1 $$");
        } else {
            TestDatabases.execute(raw, "DROP PROCEDURE IF EXISTS fg_proc_set", "DROP FUNCTION IF EXISTS fg_proc_write",
                    "CREATE PROCEDURE fg_proc_set(v INT) UPDATE fg_proc_mariadb SET balance = v WHERE id = 1",
                    "CREATE FUNCTION fg_proc_write(v INT) RETURNS INT MODIFIES SQL DATA BEGIN"
                            + " UPDATE fg_proc_mariadb SET balance = v WHERE id = 1; RETURN v; END");
        }
    }

    private int balance() throws Exception {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM " + table + " WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static Object run(DataSource dataSource, String sql) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            if (sql.startsWith("{")) {
                try (CallableStatement call = c.prepareCall(sql)) {
                    return call.execute();
                }
            }
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                return ps.execute();
            }
        }
    }

    private List<String> procedural(SqlDialect dialect) {
        List<String> common = List.of("SELECT fg_proc_write(5)", "CALL fg_proc_set(6)", "{call fg_proc_set(7)}",
                "SELECT 1 FROM " + table + " WHERE balance < fg_proc_write(8)");
        if (dialect == SqlDialect.POSTGRESQL) {
            return java.util.stream.Stream.concat(common.stream(), java.util.stream.Stream.of(
                    "DO $$ BEGIN EXECUTE 'UPDATE fg_proc_' || 'postgresql SET balance = 9'; END $$",
                    "/* leading comment */ DO LANGUAGE plpgsql $$ BEGIN PERFORM fg_proc_write(10); END $$",
                    "SELECT public.fg_proc_write(11)")).toList();
        }
        return common;
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void proceduralStatementsAreRefusedOutsideUnfencedAndRunInsideIt(SqlDialect dialect) throws Exception {
        setUp(dialect);
        FencedDataSource fenced = FencedDataSource.wrap(raw, FencingConfig.builder().fence(table).build());
        for (String sql : procedural(dialect)) {
            assertThatThrownBy(() -> as(RESOURCE, 10, () -> run(fenced, sql))).as(sql)
                    .isInstanceOfSatisfying(FencingRefusedException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.PROCEDURAL);
                        assertThat(e.getMessage()).contains("Unfenced");
                    });
            assertThatThrownBy(() -> run(fenced, sql)).as(sql).isInstanceOfSatisfying(FencingRefusedException.class,
                    e -> assertThat(e.reason()).isEqualTo(Reason.PROCEDURAL));
            try (Connection c = fenced.getConnection(); Statement s = c.createStatement()) {
                assertThatThrownBy(() -> s.execute(sql)).as(sql).isInstanceOf(FencingRefusedException.class);
            }
        }
        assertThat(balance()).isEqualTo(100);
        // reads and stable functions still run
        assertThat(as(RESOURCE, 10, () -> run(fenced, "SELECT lower('A'), count(*) FROM " + table))).isEqualTo(true);
        if (dialect == SqlDialect.POSTGRESQL) {
            assertThat(as(RESOURCE, 10, () -> run(fenced, "SELECT fg_proc_read()"))).isEqualTo(true);
        }
        // inside Unfenced they run: the refusal is what kept them out
        Unfenced.call(() -> run(fenced, "CALL fg_proc_set(42)"));
        assertThat(balance()).isEqualTo(42);
    }

    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = {"POSTGRESQL", "MARIADB"})
    void anAllowedRoutineRuns(SqlDialect dialect) throws Exception {
        setUp(dialect);
        FencedDataSource fenced = FencedDataSource.wrap(raw,
                FencingConfig.builder().fence(table).allowRoutine("fg_proc_write").build());
        assertThat(as(RESOURCE, 10, () -> run(fenced, "SELECT fg_proc_write(7)"))).isEqualTo(true);
        assertThat(balance()).isEqualTo(7);
        assertThatThrownBy(() -> as(RESOURCE, 10, () -> run(fenced, "CALL fg_proc_set(8)")))
                .isInstanceOf(FencingRefusedException.class);
        assertThat(balance()).isEqualTo(7);
    }
}
