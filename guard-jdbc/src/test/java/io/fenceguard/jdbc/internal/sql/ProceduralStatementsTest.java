package io.fenceguard.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.internal.catalog.TableNames;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Code whose writes the guard cannot see is named, per dialect, before any rewrite is tried. */
class ProceduralStatementsTest {

    private final ProceduralStatements postgres = of(SqlDialect.POSTGRESQL);
    private final ProceduralStatements mariadb = of(SqlDialect.MARIADB);
    private final ProceduralStatements h2 = of(SqlDialect.H2);

    private static ProceduralStatements of(SqlDialect dialect) {
        return new ProceduralStatements(dialect, Set.of("bump"), new TableNames(dialect, false));
    }

    @Test
    void do_blocks_calls_and_call_escapes_by_their_first_word() {
        SessionSyntax pg = SessionSyntax.defaults(SqlDialect.POSTGRESQL);
        assertThat(postgres.inStatements("DO $$ BEGIN NULL; END $$", pg)).contains("DO block");
        assertThat(postgres.inStatements("SELECT 1; CALL p()", pg)).as("any statement of several").contains("procedure");
        assertThat(postgres.inStatements("{call p(?)}", pg)).contains("JDBC call escape");
        assertThat(postgres.inStatements("SELECT 'DO' FROM t", pg)).isNull();

        SessionSyntax maria = SessionSyntax.defaults(SqlDialect.MARIADB);
        assertThat(mariadb.inStatements("DO 1", maria)).as("MariaDB's DO evaluates expressions").isNull();
        assertThat(h2.inStatements("CALL SCHEMA()", SessionSyntax.defaults(SqlDialect.H2)))
                .as("H2's CALL evaluates an expression").isNull();

        assertThat(postgres.inUncertainText("/* ' */ CALL p()")).contains("procedure");
        assertThat(postgres.inUncertainText("UPDATE t SET x = bump(1) /* ' ")).contains("bump");
        assertThat(postgres.inUncertainText("UPDATE t SET x = 1 /* ' ")).isNull();
    }

    @Test
    void routines_that_may_write_are_named_wherever_they_are_called() {
        assertThat(postgres.inParsed(SqlParsing.parse("SELECT BUMP(1)", SqlDialect.POSTGRESQL))).contains("BUMP");
        assertThat(postgres.inParsed(SqlParsing.parse("SELECT s.bump(1)", SqlDialect.POSTGRESQL))).contains("bump");
        assertThat(postgres.inParsed(SqlParsing.parse("SELECT lower('bump')", SqlDialect.POSTGRESQL))).isNull();
        assertThat(postgres.calledRoutine("SELECT bump (1); SELECT 2")).contains("bump");
        assertThat(postgres.calledRoutine("SELECT bumped(1)")).isNull();
        assertThat(new ProceduralStatements(SqlDialect.POSTGRESQL, Set.of(), new TableNames(SqlDialect.POSTGRESQL, false))
                .calledRoutine("SELECT bump(1)")).as("no routine known to write").isNull();
    }
}
