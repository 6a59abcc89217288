package io.fenceguard.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.sql.SqlFencePlan;
import org.junit.jupiter.api.Test;

/** The lexer reads comments, strings and statement ends as each server does, under each session setting. */
class SqlLexerTest {

    private static final FencingConfig CONFIG = FencingConfig.builder().fence("accounts").build();
    private static final SessionSyntax MARIADB_DEFAULT = SessionSyntax.defaults(SqlDialect.MARIADB);
    private static final SessionSyntax NO_BACKSLASH_ESCAPES = SessionSyntax.Tracker.ofSqlMode("NO_BACKSLASH_ESCAPES");
    private static final SessionSyntax ANSI_QUOTES = SessionSyntax.Tracker.ofSqlMode("STRICT_TRANS_TABLES,ANSI_QUOTES");
    private static final SessionSyntax POSTGRES_DEFAULT = SessionSyntax.defaults(SqlDialect.POSTGRESQL);
    private static final SessionSyntax NON_CONFORMING = new SessionSyntax(true, false, true);

    private final StatementPlanner mariadb = new StatementPlanner(CONFIG, SqlDialect.MARIADB);
    private final StatementPlanner postgres = new StatementPlanner(CONFIG, SqlDialect.POSTGRESQL);

    /** The known bug: JSqlParser read "--1" as a comment, and the rewrite dropped the WHERE clause. */
    @Test
    void mariaDbDoubleDashWithoutSpaceIsNoCommentAndTheWhereClauseStays() {
        StatementPlan plan = mariadb.plan("UPDATE accounts SET balance = balance--1 WHERE id = 1", MARIADB_DEFAULT);
        assertThat(plan.kind()).isEqualTo(SqlFencePlan.Kind.REWRITTEN);
        assertThat(plan.rewrittenSql()).contains("balance - -1").endsWith("WHERE id = 1");
        // with a space it is a comment, on both servers
        StatementPlan comment = mariadb.plan("UPDATE accounts SET balance = 1 -- WHERE id = 1", MARIADB_DEFAULT);
        assertThat(comment.rewrittenSql()).doesNotContain("WHERE").doesNotContain("--");
        // PostgreSQL: -- always starts a comment
        assertThat(postgres.plan("UPDATE accounts SET balance = balance--1 WHERE id = 1", POSTGRES_DEFAULT)
                .rewrittenSql()).doesNotContain("WHERE");
    }

    @Test
    void mariaDbHashCommentsEndAtTheLine() {
        StatementPlan plan = mariadb.plan("UPDATE accounts SET balance = 1 # a comment; DELETE\nWHERE id = 2",
                MARIADB_DEFAULT);
        assertThat(plan.kind()).isEqualTo(SqlFencePlan.Kind.REWRITTEN);
        assertThat(plan.rewrittenSql()).endsWith("WHERE id = 2").doesNotContain("#").doesNotContain("DELETE");
        // inside a string a # is text
        assertThat(mariadb.plan("UPDATE accounts SET note = '#x' WHERE id = 2", MARIADB_DEFAULT).rewrittenSql())
                .contains("'#x'").endsWith("WHERE id = 2");
    }

    @Test
    void mariaDbBackslashEscapesFollowSqlMode() {
        String sql = "UPDATE accounts SET note = 'a\\' WHERE id = 1 -- ' WHERE id = 2";
        // backslash escapes on: the string runs to the second quote, the statement ends with the comment
        StatementPlan escaped = mariadb.plan(sql, MARIADB_DEFAULT);
        assertThat(escaped.kind()).isEqualTo(SqlFencePlan.Kind.REWRITTEN);
        assertThat(escaped.rewrittenSql()).contains("'a\\' WHERE id = 1 -- '").endsWith("WHERE id = 2");
        // NO_BACKSLASH_ESCAPES: the string is a\ and the statement ends at WHERE id = 1
        StatementPlan literal = mariadb.plan(sql, NO_BACKSLASH_ESCAPES);
        assertThat(literal.kind()).isEqualTo(SqlFencePlan.Kind.REWRITTEN);
        assertThat(literal.rewrittenSql()).contains("'a\\'").endsWith("WHERE id = 1").doesNotContain("id = 2");
    }

    @Test
    void mariaDbDoubleQuotesAreStringsUnlessAnsiQuotes() {
        String sql = "UPDATE accounts SET note = \"it's\" WHERE id = 1";
        assertThat(mariadb.plan(sql, MARIADB_DEFAULT).rewrittenSql()).contains("note = 'it''s'")
                .endsWith("WHERE id = 1");
        // ANSI_QUOTES: an identifier (which the server rejects); never turned into a string
        assertThat(mariadb.plan("UPDATE accounts SET note = \"note\" WHERE id = 1", ANSI_QUOTES).rewrittenSql())
                .contains("\"note\"");
    }

    @Test
    void mariaDbExecutableCommentsAreRefusedWhenTheyNameAFencedTable() {
        StatementPlan plan = mariadb.plan("UPDATE other /*!, accounts */ SET balance = 0", MARIADB_DEFAULT);
        assertThat(plan.kind()).isEqualTo(SqlFencePlan.Kind.NOT_REWRITABLE);
        assertThat(plan.reason()).isEqualTo(Reason.UNPARSEABLE);
        assertThat(plan.why()).contains("/*!");
    }

    @Test
    void postgresDollarQuotesNestedCommentsAndEscapeStrings() {
        assertThat(postgres.plan("UPDATE accounts SET note = $$it's -- no comment$$ WHERE id = 1", POSTGRES_DEFAULT)
                .rewrittenSql()).contains("'it''s -- no comment'").endsWith("WHERE id = 1");
        assertThat(postgres.plan("UPDATE accounts SET note = $t$a$$b$t$ WHERE id = 1", POSTGRES_DEFAULT)
                .rewrittenSql()).contains("'a$$b'").endsWith("WHERE id = 1");
        StatementPlan nested = postgres.plan("UPDATE accounts SET note = 'x' /* a /* b */ WHERE id = 2 */ WHERE id = 1",
                POSTGRES_DEFAULT);
        assertThat(nested.rewrittenSql()).endsWith("WHERE id = 1").doesNotContain("id = 2");
        assertThat(postgres.plan("UPDATE accounts SET note = E'it\\'s' WHERE id = 1", POSTGRES_DEFAULT).rewrittenSql())
                .contains("'it''s'").endsWith("WHERE id = 1");
    }

    @Test
    void postgresWithoutStandardConformingStringsReadsBackslashes() {
        String sql = "UPDATE accounts SET note = 'a\\' WHERE id = 1 --' WHERE id = 2";
        // standard_conforming_strings on: the string is a\, the rest of the line is a comment
        assertThat(postgres.plan(sql, POSTGRES_DEFAULT).rewrittenSql()).endsWith("WHERE id = 1");
        // off: \' is a quote, the string runs to --', and the statement ends with WHERE id = 2
        StatementPlan off = postgres.plan(sql, NON_CONFORMING);
        assertThat(off.kind()).isEqualTo(SqlFencePlan.Kind.REWRITTEN);
        assertThat(off.rewrittenSql()).contains("'a'' WHERE id = 1 --'").endsWith("WHERE id = 2");
    }

    @Test
    void prefixedStringsWithBackslashesAreRefusedWhereBackslashesEscape() {
        String sql = "UPDATE accounts SET note = N'a\\' WHERE id = 1 --' WHERE id = 2";
        StatementPlan off = postgres.plan(sql, NON_CONFORMING);
        assertThat(off.kind()).isEqualTo(SqlFencePlan.Kind.NOT_REWRITABLE);
        assertThat(off.why()).contains("backslash escape");
        assertThat(mariadb.plan(sql, MARIADB_DEFAULT).kind()).isEqualTo(SqlFencePlan.Kind.NOT_REWRITABLE);
        // without a backslash the prefixed string is rewritten as usual
        assertThat(mariadb.plan("UPDATE accounts SET note = N'it''s' WHERE id = 1", MARIADB_DEFAULT).rewrittenSql())
                .contains("N'it''s'").endsWith("WHERE id = 1");
    }

    @Test
    void unknownSessionSettingsRefuseOnlyTextThatDependsOnThem() {
        StatementPlan ambiguous = mariadb.plan("UPDATE accounts SET note = 'a\\' WHERE id = 1 -- '", SessionSyntax.UNKNOWN);
        assertThat(ambiguous.kind()).isEqualTo(SqlFencePlan.Kind.NOT_REWRITABLE);
        assertThat(ambiguous.why()).contains("sql_mode");
        assertThat(mariadb.plan("UPDATE accounts SET note = 'plain' WHERE id = 1", SessionSyntax.UNKNOWN).kind())
                .isEqualTo(SqlFencePlan.Kind.REWRITTEN);
        assertThat(postgres.plan("UPDATE accounts SET note = 'a\\b' WHERE id = 1", SessionSyntax.UNKNOWN).why())
                .contains("standard_conforming_strings");
    }

    @Test
    void uncertainTextIsRefusedWhenItNamesAFencedTableAndPassesOtherwise() {
        for (String sql : new String[] {"UPDATE accounts SET note = 'unterminated", "UPDATE accounts /* open",
                "UPDATE accounts SET note = $$open"}) {
            StatementPlan plan = postgres.plan(sql, POSTGRES_DEFAULT);
            assertThat(plan.kind()).as(sql).isEqualTo(SqlFencePlan.Kind.NOT_REWRITABLE);
            assertThat(plan.why()).as(sql).contains("unterminated");
        }
        assertThat(postgres.plan("UPDATE other SET note = 'unterminated", POSTGRES_DEFAULT).kind())
                .isEqualTo(SqlFencePlan.Kind.PASS_THROUGH);
        StatementPlan two = mariadb.plan("UPDATE other SET x = 1 #\n; DELETE FROM accounts", MARIADB_DEFAULT);
        assertThat(two.kind()).isEqualTo(SqlFencePlan.Kind.NOT_REWRITABLE);
        assertThat(two.why()).contains("2 statements");
    }

    @Test
    void sqlModeChangesAreRecognised() {
        assertThat(SessionSyntax.changedBy("SET SESSION sql_mode = 'ANSI_QUOTES'")).isTrue();
        assertThat(SessionSyntax.changedBy("set @@SQL_MODE := ''")).isTrue();
        assertThat(SessionSyntax.changedBy("SET standard_conforming_strings = off")).isTrue();
        assertThat(SessionSyntax.changedBy("UPDATE accounts SET sql_modes = 1")).isFalse();
        assertThat(SessionSyntax.Tracker.ofSqlMode("ANSI").ansiQuotes()).isTrue();
        assertThat(SessionSyntax.Tracker.ofSqlMode("NO_BACKSLASH_ESCAPES").backslashEscapes()).isFalse();
    }

    @Test
    void aRewriteThatWouldDropPartOfTheStatementIsCaught() {
        CanonicalSql canonical = CanonicalSql.of("UPDATE accounts SET x = 1 WHERE id = 1", SqlDialect.MARIADB,
                MARIADB_DEFAULT);
        assertThat(canonical.dropsSomethingIn("UPDATE accounts SET x = 1, current_token = ? WHERE id = 1",
                SqlDialect.MARIADB, MARIADB_DEFAULT)).isNull();
        assertThat(canonical.dropsSomethingIn("UPDATE accounts SET x = 1, current_token = ? --1 WHERE id = 1",
                SqlDialect.POSTGRESQL, POSTGRES_DEFAULT)).contains("comment");
        assertThat(canonical.dropsSomethingIn("UPDATE accounts SET x = 1, current_token = ?", SqlDialect.MARIADB,
                MARIADB_DEFAULT)).contains("drop");
    }
}
