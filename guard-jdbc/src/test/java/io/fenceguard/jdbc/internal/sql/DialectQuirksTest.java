package io.fenceguard.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.SqlDialect;
import net.sf.jsqlparser.statement.Statement;
import org.junit.jupiter.api.Test;

/** Each dialect's quirks apply to that dialect only, and undo exactly what JSqlParser cannot read. */
class DialectQuirksTest {

    private final DialectQuirks postgres = DialectQuirks.of(SqlDialect.POSTGRESQL);
    private final DialectQuirks mariadb = DialectQuirks.of(SqlDialect.MARIADB);
    private final SessionSyntax postgresDefault = SessionSyntax.defaults(SqlDialect.POSTGRESQL);

    @Test
    void inheritance_marks_are_stripped_for_planning_and_only_is_put_back() {
        DialectQuirks.InheritanceMarks only = postgres.inheritanceMarks("UPDATE ONLY s.accounts SET x = 1");
        assertThat(only.stripped()).isEqualTo("UPDATE s.accounts SET x = 1");
        assertThat(only.restore("UPDATE s.accounts SET x = 1, t = ?")).isEqualTo("UPDATE ONLY s.accounts SET x = 1, t = ?");
        assertThat(only.restore("INSERT INTO s.accounts VALUES (1)")).as("no target to put it before").isNull();

        DialectQuirks.InheritanceMarks star = postgres.inheritanceMarks("DELETE FROM accounts * WHERE id = 1");
        assertThat(star.stripped()).isEqualTo("DELETE FROM accounts WHERE id = 1");
        assertThat(star.restore("DELETE FROM accounts WHERE id = 1")).as("t * means t").isEqualTo("DELETE FROM accounts WHERE id = 1");

        assertThat(postgres.inheritanceMarks("UPDATE accounts SET x = 1")).as("no mark").isNull();
        assertThat(postgres.inheritanceMarks("SELECT * FROM ONLY accounts")).as("not a write's target").isNull();
        assertThat(mariadb.inheritanceMarks("UPDATE ONLY accounts SET x = 1")).as("PostgreSQL only").isNull();
    }

    @Test
    void jsonb_escapes_parse_and_render_doubled_on_postgresql_only() {
        String sql = "UPDATE accounts SET b = ? WHERE data ?? 'k' AND tags ??| array['a']";
        Statement statement = postgres.parseEscaped(sql, postgresDefault);
        assertThat(statement).isNotNull();
        assertThat(statement.toString()).contains("data ?? 'k'").contains("tags ??| ARRAY['a']");

        assertThat(postgres.parseEscaped("UPDATE accounts SET b = ? WHERE data ??? 'k'", postgresDefault))
                .as("an escape next to a marker is not guessed").isNull();
        assertThat(postgres.parseEscaped("UPDATE accounts SET b = ? WHERE note = '??'", postgresDefault))
                .as("?? in a literal is no escape").isNull();
        assertThat(mariadb.parseEscaped(sql, SessionSyntax.defaults(SqlDialect.MARIADB))).isNull();
    }

    @Test
    void quoted_token_columns_are_quoted_the_dialects_way() {
        FencedTable quoted = FencedTable.of("accounts", "\"Fence Token\"");
        assertThat(postgres.tokenColumnSql(quoted)).isEqualTo("\"Fence Token\"");
        assertThat(mariadb.tokenColumnSql(quoted)).isEqualTo("`Fence Token`");
        assertThat(mariadb.tokenColumnSql(FencedTable.of("accounts", "fence_token"))).isEqualTo("fence_token");

        assertThat(mariadb.qualifiesSetTarget(true)).isTrue();
        assertThat(mariadb.qualifiesSetTarget(false)).isFalse();
        assertThat(postgres.qualifiesSetTarget(true)).isFalse();
        assertThat(postgres.castsGivenToken()).isTrue();
        assertThat(mariadb.castsGivenToken()).isFalse();
    }
}
