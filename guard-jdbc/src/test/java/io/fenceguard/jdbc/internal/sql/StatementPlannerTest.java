package io.fenceguard.jdbc.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.sql.SqlFencePlan;
import org.junit.jupiter.api.Test;

/** String in, string out: the rewrite of every supported form, and the parameter mapping. */
class StatementPlannerTest {

    private static final FencingConfig CONFIG = FencingConfig.builder()
            .fence("accounts")
            .fence(FencedTable.of("billing.ledger", "fence_token"))
            .build();
    private final StatementPlanner postgres = new StatementPlanner(CONFIG, SqlDialect.POSTGRESQL);
    private final StatementPlanner mariadb = new StatementPlanner(CONFIG, SqlDialect.MARIADB);

    private static final String SET_PG = "current_token = CASE WHEN accounts.current_token IS NULL"
            + " OR accounts.current_token <= ? THEN ? ELSE fenceguard_stale('accounts', accounts.current_token, ?) END";

    @Test
    void updateGetsTokenAssignmentAndKeepsParameterIndexes() {
        StatementPlan plan = postgres.plan("UPDATE accounts SET balance = ? WHERE id = ?");
        assertThat(plan.rewrittenSql()).isEqualTo("UPDATE accounts SET balance = ?, " + SET_PG + " WHERE id = ?");
        assertThat(plan.positionsOf(1)).containsExactly(1);
        assertThat(plan.positionsOf(2)).containsExactly(5);
        assertThat(plan.tokenPositions()).containsExactly(2, 3, 4);
        assertThat(plan.positionsOf(3)).isNull();
    }

    @Test
    void aliasQualifiesTheTokenColumnInUpdateFrom() {
        StatementPlan plan = postgres.plan("UPDATE accounts a SET balance = a.balance + ? FROM users u"
                + " WHERE a.owner = u.id AND u.name = ? RETURNING a.id, ?");
        assertThat(plan.rewrittenSql()).isEqualTo("UPDATE accounts a SET balance = a.balance + ?, current_token ="
                + " CASE WHEN a.current_token IS NULL OR a.current_token <= ? THEN ? ELSE"
                + " fenceguard_stale('accounts', a.current_token, ?) END FROM users u"
                + " WHERE a.owner = u.id AND u.name = ? RETURNING a.id, ?");
        assertThat(plan.positionsOf(2)).containsExactly(5);
        assertThat(plan.positionsOf(3)).containsExactly(6);
    }

    @Test
    void deleteWrapsOrPredicateAndRepeatsItInsideTheGuard() {
        StatementPlan plan = postgres.plan("DELETE FROM accounts WHERE id = ? OR owner = ?");
        assertThat(plan.rewrittenSql()).isEqualTo("DELETE FROM accounts WHERE (id = ? OR owner = ?) AND CASE WHEN"
                + " accounts.current_token IS NULL OR accounts.current_token <= ? THEN true WHEN (id = ? OR owner = ?)"
                + " THEN fenceguard_stale('accounts', accounts.current_token, ?) < 0 ELSE false END");
        assertThat(plan.positionsOf(1)).containsExactly(1, 4);
        assertThat(plan.positionsOf(2)).containsExactly(2, 5);
        assertThat(plan.tokenPositions()).containsExactly(3, 6);
    }

    @Test
    void deleteWithoutWhere() {
        assertThat(postgres.plan("DELETE FROM accounts").rewrittenSql()).isEqualTo("DELETE FROM accounts WHERE CASE"
                + " WHEN accounts.current_token IS NULL OR accounts.current_token <= ? THEN true ELSE"
                + " fenceguard_stale('accounts', accounts.current_token, ?) < 0 END");
    }

    @Test
    void cteSubSelectMultiColumnSetQuotedSchemaQualifiedName() {
        StatementPlan plan = postgres.plan("WITH c AS (SELECT id FROM users WHERE k = ?) UPDATE \"billing\".\"ledger\""
                + " SET (a, b) = (?, ?) WHERE id IN (SELECT id FROM c) OR z = ?");
        assertThat(plan.rewrittenSql()).isEqualTo("WITH c AS (SELECT id FROM users WHERE k = ?) UPDATE"
                + " \"billing\".\"ledger\" SET (a, b) = (?, ?), fence_token = CASE WHEN \"billing\".\"ledger\".fence_token"
                + " IS NULL OR \"billing\".\"ledger\".fence_token <= ? THEN ? ELSE fenceguard_stale('billing.ledger',"
                + " \"billing\".\"ledger\".fence_token, ?) END WHERE id IN (SELECT id FROM c) OR z = ?");
        assertThat(plan.positionsOf(1)).containsExactly(1);
        assertThat(plan.positionsOf(4)).containsExactly(7);
        // PostgreSQL keeps the case of a quoted name: "Ledger" is another table than billing.ledger
        assertThat(postgres.plan("UPDATE \"billing\".\"Ledger\" SET a = ?").kind()).isEqualTo(SqlFencePlan.Kind.PASS_THROUGH);
    }

    @Test
    void subSelectInWhereKeepsItsParameters() {
        StatementPlan plan = postgres.plan("UPDATE accounts SET balance = 0 WHERE owner IN"
                + " (SELECT id FROM users WHERE name = ? OFFSET ? LIMIT ?)");
        // the deparser writes LIMIT before OFFSET: the mapping follows the parameters, not the order
        assertThat(plan.rewrittenSql()).endsWith("WHERE owner IN (SELECT id FROM users WHERE name = ? LIMIT ? OFFSET ?)");
        assertThat(plan.positionsOf(1)).containsExactly(4);
        assertThat(plan.positionsOf(2)).containsExactly(6);
        assertThat(plan.positionsOf(3)).containsExactly(5);
    }

    @Test
    void insertStampsEveryRow() {
        StatementPlan plan = postgres.plan("INSERT INTO accounts (id, balance) VALUES (?, ?), (?, ?)");
        assertThat(plan.rewrittenSql())
                .isEqualTo("INSERT INTO accounts (id, balance, current_token) VALUES (?, ?, ?), (?, ?, ?)");
        assertThat(plan.positionsOf(3)).containsExactly(4);
        assertThat(plan.tokenPositions()).containsExactly(3, 6);
        assertThat(postgres.plan("INSERT INTO accounts (id, balance) SELECT id, ? FROM users WHERE name = ?")
                .rewrittenSql()).isEqualTo(
                "INSERT INTO accounts (id, balance, current_token) SELECT id, ?, ? FROM users WHERE name = ?");
    }

    @Test
    void onConflictDoUpdateFencesTheExistingRow() {
        StatementPlan plan = postgres.plan("INSERT INTO accounts AS a (id, balance) VALUES (?, ?) ON CONFLICT (id)"
                + " DO UPDATE SET balance = EXCLUDED.balance WHERE a.balance < ? RETURNING id");
        assertThat(plan.rewrittenSql()).isEqualTo("INSERT INTO accounts AS a (id, balance, current_token) VALUES"
                + " (?, ?, ?) ON CONFLICT (id) DO UPDATE SET balance = EXCLUDED.balance, current_token = CASE WHEN"
                + " a.current_token IS NULL OR a.current_token <= ? THEN ? ELSE fenceguard_stale('accounts',"
                + " a.current_token, ?) END WHERE a.balance < ? RETURNING id");
        assertThat(plan.positionsOf(3)).containsExactly(7);
    }

    @Test
    void mariadbBackticksOrderByLimit() {
        StatementPlan plan = mariadb.plan("UPDATE `accounts` SET `x` = ? WHERE id = ? ORDER BY id LIMIT ?");
        assertThat(plan.rewrittenSql()).isEqualTo("UPDATE `accounts` SET `x` = ?, current_token = CASE WHEN"
                + " `accounts`.current_token IS NULL OR `accounts`.current_token <= ? THEN ? ELSE"
                + " fenceguard_stale('accounts', `accounts`.current_token, ?) END WHERE id = ? ORDER BY id LIMIT ?");
        assertThat(plan.positionsOf(3)).containsExactly(6);
    }

    @Test
    void mariadbOnDuplicateKeyUpdateAssignsTokenLast() {
        assertThat(mariadb.plan("INSERT INTO accounts (id, b) VALUES (?, ?) ON DUPLICATE KEY UPDATE b = VALUES(b)")
                .rewrittenSql()).isEqualTo("INSERT INTO accounts (id, b, current_token) VALUES (?, ?, ?) ON DUPLICATE"
                + " KEY UPDATE b = VALUES(b), current_token = CASE WHEN accounts.current_token IS NULL OR"
                + " accounts.current_token <= ? THEN ? ELSE fenceguard_stale('accounts', accounts.current_token, ?) END");
    }

    @Test
    void mariadbJoinedUpdateQualifiesTheSetTarget() {
        assertThat(mariadb.plan("UPDATE accounts a JOIN users u ON a.owner = u.id SET a.balance = ? WHERE u.name = ?")
                .rewrittenSql()).isEqualTo("UPDATE accounts a JOIN users u ON a.owner = u.id SET a.balance = ?,"
                + " a.current_token = CASE WHEN a.current_token IS NULL OR a.current_token <= ? THEN ? ELSE"
                + " fenceguard_stale('accounts', a.current_token, ?) END WHERE u.name = ?");
    }

    @Test
    void readsAndOtherTablesPassThroughAsWritten() {
        String select = "select *   from accounts where id = ? -- comment";
        assertThat(postgres.plan(select).kind()).isEqualTo(SqlFencePlan.Kind.PASS_THROUGH);
        assertThat(postgres.plan(select).rewrittenSql()).isSameAs(select);
        assertThat(postgres.plan("UPDATE other SET x = ?").kind()).isEqualTo(SqlFencePlan.Kind.PASS_THROUGH);
        assertThat(postgres.plan("SELECT * FROM accounts").isRead()).isTrue();
    }

    @Test
    void unrewritableWritesAreMarkedWithTheReason() {
        assertRefused("UPDATE accounts SET current_token = 5", Reason.UNSUPPORTED_FORM, "current_token");
        assertRefused("WITH x AS (DELETE FROM accounts RETURNING id) SELECT * FROM x", Reason.UNSUPPORTED_FORM,
                "nested");
        assertRefused("UPDATE accounts SET x = 1; DELETE FROM accounts", Reason.UNPARSEABLE, "2 statements");
        assertRefused("TRUNCATE accounts", Reason.UNSUPPORTED_FORM, "TRUNCATE");
        assertRefused("UPDATE accounts SET x = ?1", Reason.UNSUPPORTED_FORM, "numbered parameter");
        assertRefused("INSERT INTO accounts VALUES (1, 2)", Reason.UNSUPPORTED_FORM, "column list");
        assertRefused("UPDATE IGNORE accounts SET x = 1", Reason.UNSUPPORTED_FORM, "IGNORE");
        assertRefused("DELETE a FROM accounts a JOIN users u ON a.owner = u.id", Reason.UNSUPPORTED_FORM,
                "multi-table");
    }

    @Test
    void everyTableOfAMultiTableDropOrTruncateIsChecked() {
        for (StatementPlanner planner : new StatementPlanner[] {postgres, mariadb}) {
            assertThat(planner.plan("DROP TABLE IF EXISTS other, accounts").kind())
                    .isEqualTo(SqlFencePlan.Kind.NOT_REWRITABLE);
            assertThat(planner.plan("TRUNCATE TABLE other, billing.ledger").why()).contains("TRUNCATE");
            assertThat(planner.plan("DROP TABLE other, users").kind()).isEqualTo(SqlFencePlan.Kind.PASS_THROUGH);
        }
    }

    @Test
    void textTheDatabaseReadsDifferentlyIsRefusedWhenItNamesAFencedTable() {
        String executableComment = "UPDATE other /*!, accounts */ SET balance = 0";
        assertRefused(executableComment, Reason.UNPARSEABLE, "/*!");
        assertThat(postgres.plan(executableComment).kind()).isEqualTo(SqlFencePlan.Kind.PASS_THROUGH);
        String escapeString = "WITH c AS (SELECT E'a\\') UPDATE other SET x = 1 --') UPDATE accounts SET x = 2";
        // read as the server reads it: the E'' string ends after --, so the statement updates accounts
        StatementPlan plan = postgres.plan(escapeString);
        assertThat(plan.kind()).isEqualTo(SqlFencePlan.Kind.REWRITTEN);
        assertThat(plan.rewrittenSql()).contains("'a'') UPDATE other SET x = 1 --'")
                .contains("UPDATE accounts SET x = 2, current_token = CASE");
        assertThat(postgres.plan("UPDATE accounts SET x = E'\\x41'").why()).contains("backslash escape");
        assertThat(postgres.plan("UPDATE accounts SET x = E'a\\nb'").rewrittenSql()).contains("x = 'a\nb'");
        assertThat(postgres.plan("UPDATE other SET x = E'\\n'").kind()).isEqualTo(SqlFencePlan.Kind.PASS_THROUGH);
        assertThat(postgres.plan("UPDATE accounts SET note = E'no backslash'").kind())
                .isEqualTo(SqlFencePlan.Kind.REWRITTEN);
    }

    private void assertRefused(String sql, Reason reason, String why) {
        StatementPlan plan = mariadb.plan(sql);
        assertThat(plan.kind()).as(sql).isEqualTo(SqlFencePlan.Kind.NOT_REWRITABLE);
        assertThat(plan.reason()).as(sql).isEqualTo(reason);
        assertThat(plan.why()).as(sql).contains(why);
    }

    /** The jdbc checks work on the lexer's canonical text: comments neither hide nor fake what they look for. */
    @Test
    void proceduralInheritanceAndJsonbChecksReadTheCanonicalText() {
        // a comment does not make a write procedural, nor hide a procedure behind a first statement
        assertThat(postgres.plan("/* DO */ UPDATE accounts SET balance = ? WHERE id = ?").kind())
                .isEqualTo(SqlFencePlan.Kind.REWRITTEN);
        assertThat(mariadb.plan("# CALL p()\nUPDATE accounts SET balance = ? WHERE id = ?").kind())
                .isEqualTo(SqlFencePlan.Kind.REWRITTEN);
        assertThat(postgres.plan("SELECT 1; DO $$ BEGIN EXECUTE 'UPDATE acc' || 'ounts SET balance = 0'; END $$")
                .reason()).isEqualTo(Reason.PROCEDURAL);
        assertThat(mariadb.plan("SELECT 1; /* c */ CALL wipe()").reason()).isEqualTo(Reason.PROCEDURAL);
        assertThat(postgres.plan("/* c */ {call wipe(?)}").reason()).isEqualTo(Reason.PROCEDURAL);
        assertThat(postgres.plan("SELECT 'DO'; SELECT 1").kind()).isEqualTo(SqlFencePlan.Kind.PASS_THROUGH);

        // ONLY behind a comment is still ONLY and is kept; a commented-out ONLY is no mark
        assertThat(postgres.plan("UPDATE /* c */ ONLY accounts SET balance = ? WHERE id = ?").rewrittenSql())
                .startsWith("UPDATE ONLY accounts SET balance = ?, current_token");
        assertThat(postgres.plan("DELETE FROM accounts * -- tail\n WHERE id = ?").rewrittenSql())
                .startsWith("DELETE FROM accounts WHERE (id = ?) AND CASE");
        assertThat(postgres.plan("UPDATE /* ONLY */ accounts SET balance = ?").rewrittenSql())
                .startsWith("UPDATE accounts SET balance = ?, current_token");

        // jsonb ?? found by the lexer: one in a literal stays as written, one in a comment is dropped
        StatementPlan jsonb = postgres.plan("UPDATE accounts SET balance = ? /* ?? */ WHERE data ?? 'k' AND note <> '??'");
        assertThat(jsonb.rewrittenSql()).contains("data ?? 'k' AND note <> '??'").doesNotContain("/*");
        assertThat(jsonb.applicationParameterCount()).isEqualTo(1);
        assertThat(postgres.plan("UPDATE accounts SET balance = ? WHERE data ??? 'k'").kind())
                .isEqualTo(SqlFencePlan.Kind.NOT_REWRITABLE);
    }
}
