package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import java.util.List;
import java.util.Optional;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.ConflictActionType;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;

/** The rewrite of one UPDATE, DELETE or INSERT whose target may be fenced. */
final class WriteRewriter {

    private final StatementPlanner planner;
    private final String sql;

    WriteRewriter(StatementPlanner planner, String sql) {
        this.planner = planner;
        this.sql = sql;
    }

    /** Adds {@code tok = CASE WHEN admitted THEN ? ELSE stale END} to the SET list. */
    StatementPlan update(Update update) {
        List<Join> startJoins = update.getStartJoins() == null ? List.of() : update.getStartJoins();
        for (Join join : startJoins) {
            Optional<FencedTable> joined = fenced(join.getFromItem());
            if (joined.isPresent()) {
                return refuse(joined.get(), "a multi-table UPDATE joining fenced table " + joined.get().qualifiedName()
                        + " may write it; update one fenced table per statement");
            }
        }
        Optional<FencedTable> target = planner.fenced(update.getTable());
        if (target.isEmpty()) {
            return StatementPlan.passThrough(sql, false);
        }
        FencedTable table = target.get();
        if (update.isModifierIgnore()) {
            return refuse(table, "UPDATE IGNORE would turn the stale-token error into a warning");
        }
        if (setsTokenColumn(update.getUpdateSets(), table)) {
            return refuse(table, "it sets " + table.tokenColumn() + ", which the guard maintains");
        }
        FenceExpressions fence = fence(update.getTable(), table);
        boolean qualified = planner.quirks().qualifiesSetTarget(!startJoins.isEmpty());
        update.getUpdateSets().add(new UpdateSet(fence.target(qualified), fence.newRowToken()));
        return render(update, fence, table);
    }

    /** ANDs {@code CASE WHEN admitted THEN TRUE WHEN (where) THEN stale ELSE FALSE END} to the WHERE clause. */
    StatementPlan delete(Delete delete) {
        if (delete.getTables() != null && !delete.getTables().isEmpty()) {
            for (Table table : delete.getTables()) {
                Optional<FencedTable> named = planner.fenced(table);
                if (named.isPresent()) {
                    return refuse(named.get(), "a multi-table DELETE cannot be fenced");
                }
            }
            Optional<FencedTable> from = planner.fenced(delete.getTable());
            if (from.isPresent()) {
                return refuse(from.get(), "a multi-table DELETE cannot be fenced");
            }
            for (Join join : delete.getJoins() == null ? List.<Join>of() : delete.getJoins()) {
                Optional<FencedTable> joined = fenced(join.getFromItem());
                if (joined.isPresent()) {
                    return refuse(joined.get(), "a multi-table DELETE cannot be fenced");
                }
            }
            return StatementPlan.passThrough(sql, false);
        }
        Optional<FencedTable> target = planner.fenced(delete.getTable());
        if (target.isEmpty()) {
            return StatementPlan.passThrough(sql, false);
        }
        FencedTable table = target.get();
        if (delete.isModifierIgnore()) {
            return refuse(table, "DELETE IGNORE would turn the stale-token error into a warning");
        }
        FenceExpressions fence = fence(delete.getTable(), table);
        Expression where = delete.getWhere();
        if (where == null) {
            delete.setWhere(fence.admitsOrRaises(null));
        } else {
            Expression guard = fence.admitsOrRaises(new ParenthesedExpressionList<>(where));
            delete.setWhere(new AndExpression(new ParenthesedExpressionList<>(where), guard));
        }
        return render(delete, fence, table);
    }

    /**
     * Stamps new rows with the token; an upsert's update part gets the same SET entry as UPDATE, last,
     * because MariaDB evaluates ON DUPLICATE KEY UPDATE assignments left to right.
     */
    StatementPlan insert(Insert insert) {
        Optional<FencedTable> target = planner.fenced(insert.getTable());
        if (target.isEmpty()) {
            return StatementPlan.passThrough(sql, false);
        }
        FencedTable table = target.get();
        if (insert.isModifierIgnore()) {
            return refuse(table, "INSERT IGNORE would turn the stale-token error into a warning");
        }
        if (insert.isUseSet()) {
            return refuse(table, "INSERT ... SET cannot be fenced; use a column list and VALUES");
        }
        ExpressionList<Column> columns = insert.getColumns();
        if (columns == null || columns.isEmpty()) {
            return refuse(table, "an INSERT without a column list cannot carry the token column");
        }
        int tokenIndex = -1;
        for (int i = 0; i < columns.size(); i++) {
            if (isTokenColumn(columns.get(i), table)) {
                if (tokenIndex >= 0) {
                    return refuse(table, "it names " + table.tokenColumn() + " twice");
                }
                tokenIndex = i;
            }
        }
        FenceExpressions fence = fence(insert.getTable(), table);
        Select source = insert.getSelect();
        if (tokenIndex >= 0) {
            // the application gives the token column a value (an entity mapping all columns): stamp over it
            String failure = stampGiven(source, tokenIndex, fence);
            if (failure != null) {
                return refuse(table, failure);
            }
        } else if (source instanceof Values values) {
            stamp(values, fence);
        } else if (source instanceof PlainSelect select) {
            select.addSelectItem(fence.token());
        } else {
            return refuse(table, "this INSERT source cannot carry the token; use VALUES or a plain SELECT");
        }
        if (tokenIndex < 0) {
            columns.add(new Column(planner.quirks().tokenColumnSql(table)));
        }
        if (insert.getConflictAction() != null
                && insert.getConflictAction().getConflictActionType() == ConflictActionType.DO_UPDATE) {
            if (setsTokenColumn(insert.getConflictAction().getUpdateSets(), table)) {
                return refuse(table, "it sets " + table.tokenColumn() + ", which the guard maintains");
            }
            insert.getConflictAction().getUpdateSets().add(new UpdateSet(fence.target(false), fence.newRowToken()));
        }
        List<UpdateSet> duplicate = insert.getDuplicateUpdateSets();
        if (duplicate != null && !duplicate.isEmpty()) {
            if (setsTokenColumn(duplicate, table)) {
                return refuse(table, "it sets " + table.tokenColumn() + ", which the guard maintains");
            }
            duplicate.add(new UpdateSet(fence.target(false), fence.newRowToken()));
        }
        return render(insert, fence, table);
    }

    /** Replaces the value at {@code index} of every row with the stamped token; a reason when it cannot. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private String stampGiven(Select source, int index, FenceExpressions fence) {
        boolean cast = planner.quirks().castsGivenToken();
        if (source instanceof Values values) {
            ExpressionList<Expression> rows = values.getExpressions();
            boolean multiRow = !rows.isEmpty() && rows.stream().allMatch(e -> e instanceof ExpressionList<?>);
            List<ExpressionList> lists = multiRow ? rows.stream().map(e -> (ExpressionList) e).toList()
                    : List.of((ExpressionList) rows);
            for (ExpressionList row : lists) {
                if (row.size() <= index) {
                    return "a VALUES row has fewer values than the column list";
                }
                row.set(index, fence.initialToken((Expression) row.get(index), cast));
            }
            return null;
        }
        if (source instanceof PlainSelect select) {
            List<SelectItem<?>> items = select.getSelectItems();
            if (items.size() <= index || items.stream().anyMatch(item -> item.getExpression() instanceof AllColumns)) {
                return "the SELECT feeding it must list its values one by one to carry the token";
            }
            SelectItem item = items.get(index);
            item.setExpression(fence.initialToken(item.getExpression(), cast));
            return null;
        }
        return "this INSERT source cannot carry the token; use VALUES or a plain SELECT";
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void stamp(Values values, FenceExpressions fence) {
        ExpressionList<Expression> rows = values.getExpressions();
        boolean multiRow = !rows.isEmpty() && rows.stream().allMatch(e -> e instanceof ExpressionList<?>);
        if (multiRow) {
            for (Expression row : rows) {
                ((ExpressionList) row).add(fence.token());
            }
        } else {
            rows.add(fence.token());
        }
    }

    private FenceExpressions fence(Table written, FencedTable table) {
        return new FenceExpressions(FenceExpressions.qualifierOf(written), planner.quirks().tokenColumnSql(table),
                table.qualifiedName(), planner.staleFunction());
    }

    private StatementPlan render(Statement statement, FenceExpressions fence, FencedTable table) {
        ParameterMarkers.Rendering rendering = ParameterMarkers.render(statement, fence.tokenParameters(), sql);
        if (rendering.failure() != null) {
            return refuse(table, rendering.failure());
        }
        return StatementPlan.rewritten(sql, rendering.sql(), rendering.positions(), rendering.tokenPositions(),
                rendering.parameterCount(), table.qualifiedName());
    }

    private Optional<FencedTable> fenced(FromItem item) {
        return item instanceof Table table ? planner.fenced(table) : Optional.empty();
    }

    private static boolean setsTokenColumn(List<UpdateSet> sets, FencedTable table) {
        if (sets == null) {
            return false;
        }
        for (UpdateSet set : sets) {
            for (Column column : set.getColumns()) {
                if (isTokenColumn(column, table)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isTokenColumn(Column column, FencedTable table) {
        String name = column.getColumnName();
        if (name.length() >= 2 && (name.charAt(0) == '"' || name.charAt(0) == '`')) {
            name = name.substring(1, name.length() - 1);
        }
        return name.equalsIgnoreCase(table.tokenColumn());
    }

    private StatementPlan refuse(FencedTable table, String why) {
        return StatementPlan.notRewritable(sql, table.qualifiedName(), Reason.UNSUPPORTED_FORM, why);
    }
}
