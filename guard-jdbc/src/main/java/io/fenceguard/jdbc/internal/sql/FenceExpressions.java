package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.internal.catalog.Catalog;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.IsNullExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;

/**
 * Builds the fencing expressions for one statement and remembers the token parameters it created.
 * The admission test is "row token is NULL or &lt;= presented token"; anything else reaches
 * the stale function ({@link Catalog#STALE_FUNCTION}), which raises SQLSTATE 40F01 and so fails the whole statement.
 */
final class FenceExpressions {

    private final Table qualifier;
    private final String tokenColumn;
    private final String tableName;
    private final String staleFunction;
    private final List<JdbcParameter> tokenParameters = new ArrayList<>();

    /**
     * @param qualifier how the statement names the row being written: its alias, else its name
     * @param tableName the fenced table, as reported by the stale function
     */
    FenceExpressions(Table qualifier, String tokenColumn, String tableName, String staleFunction) {
        this.qualifier = qualifier;
        this.tokenColumn = tokenColumn;
        // the label is a string literal: no quote or backslash may end it early
        this.tableName = tableName.replace("\"", "").replace("`", "").replace('\'', '_').replace('\\', '_');
        this.staleFunction = staleFunction;
    }

    /** The alias if there is one, else schema and name as written (quotes kept). */
    static Table qualifierOf(Table table) {
        Table qualifier = new Table();
        if (table.getAlias() != null) {
            qualifier.setName(table.getAlias().getName());
        } else {
            qualifier.setName(table.getName());
            qualifier.setSchemaName(table.getSchemaName());
        }
        return qualifier;
    }

    /** A fresh {@code ?} bound to the lease's token. */
    JdbcParameter token() {
        JdbcParameter parameter = new JdbcParameter();
        tokenParameters.add(parameter);
        return parameter;
    }

    List<JdbcParameter> tokenParameters() {
        return tokenParameters;
    }

    Column rowToken() {
        return new Column(qualifier, tokenColumn);
    }

    /** The token column as a SET target, qualified or not. */
    Column target(boolean qualified) {
        return qualified ? new Column(qualifier, tokenColumn) : new Column(tokenColumn);
    }

    /** {@code q.tok IS NULL OR q.tok <= ?}. */
    Expression admits() {
        return new OrExpression(new IsNullExpression(rowToken()), new MinorThanEquals(rowToken(), token()));
    }

    /** {@code fenceguard_stale('table', q.tok, ?)}: raises, never returns. */
    Expression stale() {
        return new Function(staleFunction, new StringValue(tableName), rowToken(), token());
    }

    /**
     * For a value the application gives the token column in an INSERT (an initial value, often NULL):
     * {@code CASE WHEN v IS NULL OR v <= ? THEN ? ELSE stale END}. The row is stamped with the lease's
     * token, as every fenced INSERT is; a value above it (a newer holder's) is refused as stale.
     */
    Expression initialToken(Expression value, boolean castToBigint) {
        Expression v = castToBigint ? new CastExpression("CAST", value, "BIGINT")
                : new ParenthesedExpressionList<>(value);
        CaseExpression expression = new CaseExpression();
        expression.setWhenClauses(List.of(new WhenClause(
                new OrExpression(new IsNullExpression(v), new MinorThanEquals(v, token())), token())));
        expression.setElseExpression(new Function(staleFunction, new StringValue(tableName), v, token()));
        return expression;
    }

    /** For a SET list: {@code CASE WHEN admits THEN ? ELSE stale END}; only rows being written reach it. */
    Expression newRowToken() {
        CaseExpression expression = new CaseExpression();
        expression.setWhenClauses(List.of(new WhenClause(admits(), token())));
        expression.setElseExpression(stale());
        return expression;
    }

    /**
     * For a WHERE clause: true for admitted rows, a raise for a stale row that matches {@code where},
     * false otherwise. {@code where} is repeated inside so that a database evaluating this before
     * the application's condition cannot raise for a row the statement does not touch.
     */
    Expression admitsOrRaises(Expression where) {
        CaseExpression expression = new CaseExpression();
        List<WhenClause> whens = new ArrayList<>();
        whens.add(new WhenClause(admits(), new BooleanValue(true)));
        Expression raise = new MinorThan(stale(), new LongValue(0));
        if (where == null) {
            expression.setWhenClauses(whens);
            expression.setElseExpression(raise);
        } else {
            whens.add(new WhenClause(where, raise));
            expression.setWhenClauses(whens);
            expression.setElseExpression(new BooleanValue(false));
        }
        return expression;
    }
}
