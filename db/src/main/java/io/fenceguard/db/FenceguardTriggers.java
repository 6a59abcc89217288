package io.fenceguard.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Trigger mode, an opt-in defense in depth: for each fenced table, a row trigger on PostgreSQL or
 * MariaDB/MySQL that refuses any write not carrying the token the guard set for the session, whatever
 * path the write takes (a raw connection, a procedure, a view, another application without the guard).
 *
 * <p>A write passes when the session's token is set ({@value #POSTGRES_TOKEN_SETTING} on PostgreSQL,
 * {@code @fenceguard_token} on MariaDB; fenceguard-jdbc sets it with {@code FencingConfig.triggerMode(true)})
 * and the row's token column is that token after the write (new and updated rows) and at most that
 * token before it (updated and deleted rows). A row carrying a newer token fails with SQLSTATE 40F01
 * (the guard's stale-token error); a write without a current token with SQLSTATE {@value #NO_TOKEN_STATE}.
 * Maintenance work passes inside {@link #maintenance(Connection, String)}, which leaves a row in
 * {@value #MAINTENANCE_LOG}. On PostgreSQL TRUNCATE of a fenced table is refused as well; MariaDB runs
 * no trigger for TRUNCATE (the guard refuses it; revoke DROP from other users to close that path).
 *
 * <p>Installing is idempotent and separate from {@link FenceguardMigrations} (which always runs):
 * call {@link #install} after the application's tables exist, or let the Spring Boot auto-configuration
 * do it ({@code fenceguard.db.triggers=true}). Spring-free, plain JDBC.
 */
public final class FenceguardTriggers {

    /** The audit table of maintenance scopes. */
    public static final String MAINTENANCE_LOG = "fenceguard_maintenance_log";
    /** The PostgreSQL setting holding the session's token. */
    public static final String POSTGRES_TOKEN_SETTING = "fenceguard.token";
    /** The MariaDB user variable holding the session's token. */
    public static final String MARIADB_TOKEN_VARIABLE = "@fenceguard_token";
    /** SQLSTATE of a write refused for lack of a current token. */
    public static final String NO_TOKEN_STATE = "0AF02";
    /** The token column when none is named. */
    public static final String DEFAULT_TOKEN_COLUMN = "current_token";

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*(\\.[A-Za-z_][A-Za-z0-9_$]*)?");

    private FenceguardTriggers() {
    }

    /** Installs the triggers on {@code tables} ({@code [schema.]table}), token column {@value #DEFAULT_TOKEN_COLUMN}. */
    public static void install(DataSource dataSource, String... tables) {
        List<FencedColumn> columns = new ArrayList<>();
        for (String table : tables) {
            columns.add(new FencedColumn(table, DEFAULT_TOKEN_COLUMN));
        }
        install(dataSource, columns);
    }

    /** Installs the triggers, replacing earlier ones of the guard on the same tables. */
    public static void install(DataSource dataSource, List<FencedColumn> tables) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            boolean postgres = isPostgres(connection);
            // PostgreSQL resolves names in a trigger through the writing session's search_path (where a
            // temporary table could stand in for the log): every name is qualified with this schema
            String schema = postgres ? currentSchema(connection) + "." : "";
            for (String sql : postgres ? PostgresTriggers.logTable(schema) : MariaDbTriggers.logTable()) {
                statement.execute(sql);
            }
            for (FencedColumn table : tables) {
                for (String sql : postgres ? PostgresTriggers.install(table, schema) : MariaDbTriggers.install(table)) {
                    statement.execute(sql);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("fenceguard could not install its triggers on " + tables + ": "
                    + e.getMessage(), e);
        }
    }

    /** Drops the guard's triggers from {@code tables}; the maintenance log stays. */
    public static void uninstall(DataSource dataSource, String... tables) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            boolean postgres = isPostgres(connection);
            for (String table : tables) {
                FencedColumn fenced = new FencedColumn(table, DEFAULT_TOKEN_COLUMN);
                for (String sql : postgres ? PostgresTriggers.uninstall(fenced) : MariaDbTriggers.uninstall(fenced)) {
                    statement.execute(sql);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("fenceguard could not drop its triggers from " + List.of(tables) + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Opens an audited maintenance scope on {@code connection}: writes on it pass the triggers until the
     * scope closes. It records {@code reason}, the database user and the time in {@value #MAINTENANCE_LOG},
     * in the connection's transaction: on PostgreSQL the scope is that transaction (auto-commit must be
     * off) and ends with it at the latest; on MariaDB it is the session's, until {@link Maintenance#close()}.
     */
    public static Maintenance maintenance(Connection connection, String reason) throws SQLException {
        Objects.requireNonNull(reason, "reason");
        if (reason.isBlank()) {
            throw new IllegalArgumentException("a maintenance scope needs a reason for the audit log");
        }
        boolean postgres = isPostgres(connection);
        if (postgres && connection.getAutoCommit()) {
            throw new IllegalStateException("a PostgreSQL maintenance scope lives in a transaction: "
                    + "call setAutoCommit(false) first");
        }
        long id;
        if (postgres) {
            id = queryLong(connection, "INSERT INTO " + MAINTENANCE_LOG + " (txid, reason) VALUES (txid_current(), ?)"
                    + " RETURNING id", reason);
            queryLong(connection, "SELECT CAST(set_config('fenceguard.maintenance', ?, true) AS BIGINT)",
                    Long.toString(id));
        } else {
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + MAINTENANCE_LOG
                    + " (connection_id, db_user, reason) VALUES (CONNECTION_ID(), CURRENT_USER(), ?)", Statement.RETURN_GENERATED_KEYS)) {
                insert.setString(1, reason);
                insert.executeUpdate();
                try (ResultSet keys = insert.getGeneratedKeys()) {
                    keys.next();
                    id = keys.getLong(1);
                }
            }
            try (PreparedStatement set = connection.prepareStatement("SET @fenceguard_maintenance = ?")) {
                set.setLong(1, id);
                set.execute();
            }
        }
        return new Maintenance(connection, postgres, id);
    }

    /** An open maintenance scope; {@link #close()} ends it. */
    public static final class Maintenance implements AutoCloseable {
        private final Connection connection;
        private final boolean postgres;
        private final long id;

        private Maintenance(Connection connection, boolean postgres, long id) {
            this.connection = connection;
            this.postgres = postgres;
            this.id = id;
        }

        /** The row of this scope in {@value #MAINTENANCE_LOG}. */
        public long id() {
            return id;
        }

        @Override
        public void close() throws SQLException {
            if (postgres) {
                if (!connection.isClosed() && !connection.getAutoCommit()) {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("SELECT set_config('fenceguard.maintenance', '', true)");
                    }
                }
                return;
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET @fenceguard_maintenance = NULL");
                statement.executeUpdate("UPDATE " + MAINTENANCE_LOG + " SET ended_at = CURRENT_TIMESTAMP(6)"
                        + " WHERE id = " + id);
            }
        }
    }

    /** A fenced table and its token column. */
    public record FencedColumn(String table, String tokenColumn) {
        public FencedColumn {
            if (table == null || !NAME.matcher(table.trim()).matches()) {
                throw new IllegalArgumentException("a fenced table for triggers is [schema.]table of letters, digits,"
                        + " _ and $, got '" + table + "'");
            }
            if (tokenColumn == null || !NAME.matcher(tokenColumn).matches() || tokenColumn.contains(".")) {
                throw new IllegalArgumentException("invalid token column '" + tokenColumn + "'");
            }
            table = table.trim();
        }

        String bareName() {
            return table.substring(table.indexOf('.') + 1);
        }

        /** A name for the guard's objects of this table (the schema's prefix joined with _). */
        String objectSuffix() {
            return table.replace('.', '_').toLowerCase(Locale.ROOT);
        }

        String schemaPrefix() {
            int dot = table.indexOf('.');
            return dot < 0 ? "" : table.substring(0, dot + 1);
        }
    }

    private static boolean isPostgres(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        if (product.contains("postgres")) {
            return true;
        }
        if (product.contains("mariadb") || product.contains("mysql")) {
            return false;
        }
        throw new IllegalStateException("fenceguard's trigger mode supports PostgreSQL and MariaDB/MySQL, not "
                + product);
    }

    private static String currentSchema(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rs = statement.executeQuery("SELECT quote_ident(current_schema())")) {
            if (!rs.next() || rs.getString(1) == null) {
                throw new IllegalStateException("fenceguard's triggers need a current schema (search_path is empty)");
            }
            return rs.getString(1);
        }
    }

    private static long queryLong(Connection connection, String sql, String argument) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, argument);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The PostgreSQL objects: one check function per table (the token column inlined), one trigger. */
    private static final class PostgresTriggers {

        /** @param schema the quoted schema and a dot, prefixed to every name */
        static List<String> logTable(String schema) {
            return List.of("CREATE TABLE IF NOT EXISTS " + schema + MAINTENANCE_LOG + " ("
                    + " id BIGSERIAL PRIMARY KEY,"
                    + " txid BIGINT NOT NULL,"
                    + " db_user TEXT NOT NULL DEFAULT current_user,"
                    + " started_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),"
                    + " reason TEXT NOT NULL)",
                    """
                    CREATE OR REPLACE FUNCTION %1$sfenceguard_in_maintenance() RETURNS BOOLEAN
                        LANGUAGE plpgsql STABLE AS $$
                    DECLARE
                        scope TEXT := current_setting('fenceguard.maintenance', true);
                    BEGIN
                        IF scope IS NULL OR scope = '' THEN
                            RETURN FALSE;
                        END IF;
                        RETURN EXISTS (SELECT 1 FROM %1$s%2$s WHERE id = scope::BIGINT AND txid = txid_current());
                    END
                    $$""".formatted(schema, MAINTENANCE_LOG),
                    """
                    CREATE OR REPLACE FUNCTION %2$sfenceguard_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF NOT %2$sfenceguard_in_maintenance() THEN
                            RAISE EXCEPTION USING ERRCODE = '%1$s',
                                MESSAGE = format('fenceguard: TRUNCATE of fenced table %%s outside a maintenance scope'
                                    || ' (trigger mode)', TG_TABLE_NAME);
                        END IF;
                        RETURN NULL;
                    END
                    $$""".formatted(NO_TOKEN_STATE, schema));
        }

        static List<String> install(FencedColumn table, String schema) {
            String function = (table.schemaPrefix().isEmpty() ? schema : table.schemaPrefix())
                    + "fenceguard_check_" + table.bareName().toLowerCase(Locale.ROOT);
            String column = table.tokenColumn();
            String body = """
                    CREATE OR REPLACE FUNCTION %1$s() RETURNS trigger LANGUAGE plpgsql AS $$
                    DECLARE
                        presented TEXT := current_setting('%2$s', true);
                        token BIGINT;
                    BEGIN
                        IF %5$sfenceguard_in_maintenance() THEN
                            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
                            RETURN NEW;
                        END IF;
                        IF presented IS NULL OR presented = '' THEN
                            RAISE EXCEPTION USING ERRCODE = '%3$s',
                                MESSAGE = format('fenceguard: %%s on fenced table %%s without a fencing token (trigger mode):'
                                    || ' write through the guard under a lease, or in a maintenance scope', TG_OP, TG_TABLE_NAME);
                        END IF;
                        token := presented::BIGINT;
                        IF TG_OP <> 'INSERT' THEN
                            IF OLD.%4$s > token THEN
                                RAISE EXCEPTION USING ERRCODE = '40F01',
                                    MESSAGE = format('fenceguard: stale fencing token %%s on table %%s, row carries token %%s',
                                        token, TG_TABLE_NAME, OLD.%4$s);
                            END IF;
                            IF TG_OP = 'DELETE' THEN
                                RETURN OLD;
                            END IF;
                        END IF;
                        IF NEW.%4$s IS DISTINCT FROM token THEN
                            RAISE EXCEPTION USING ERRCODE = '%3$s',
                                MESSAGE = format('fenceguard: %%s on fenced table %%s leaves %%s = %%s, not the token %%s'
                                    || ' the guard set (trigger mode)', TG_OP, TG_TABLE_NAME, '%4$s', NEW.%4$s, token);
                        END IF;
                        RETURN NEW;
                    END
                    $$""".formatted(function, POSTGRES_TOKEN_SETTING, NO_TOKEN_STATE, column, schema);
            return List.of(body,
                    "DROP TRIGGER IF EXISTS fenceguard_check ON " + table.table(),
                    "CREATE TRIGGER fenceguard_check BEFORE INSERT OR UPDATE OR DELETE ON " + table.table()
                            + " FOR EACH ROW EXECUTE FUNCTION " + function + "()",
                    "DROP TRIGGER IF EXISTS fenceguard_truncate ON " + table.table(),
                    "CREATE TRIGGER fenceguard_truncate BEFORE TRUNCATE ON " + table.table()
                            + " FOR EACH STATEMENT EXECUTE FUNCTION " + schema + "fenceguard_refuse_truncate()");
        }

        static List<String> uninstall(FencedColumn table) {
            return List.of("DROP TRIGGER IF EXISTS fenceguard_check ON " + table.table(),
                    "DROP TRIGGER IF EXISTS fenceguard_truncate ON " + table.table(),
                    "DROP FUNCTION IF EXISTS " + table.schemaPrefix() + "fenceguard_check_"
                            + table.bareName().toLowerCase(Locale.ROOT) + "()");
        }
    }

    /** The MariaDB/MySQL objects: three triggers per table (one per event). */
    private static final class MariaDbTriggers {

        private static final String IN_MAINTENANCE = "(@fenceguard_maintenance IS NOT NULL AND EXISTS (SELECT 1 FROM "
                + MAINTENANCE_LOG + " WHERE id = @fenceguard_maintenance AND connection_id = CONNECTION_ID()"
                + " AND ended_at IS NULL))";

        static List<String> logTable() {
            return List.of("CREATE TABLE IF NOT EXISTS " + MAINTENANCE_LOG + " ("
                    + " id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                    + " connection_id BIGINT NOT NULL,"
                    + " db_user VARCHAR(255) NOT NULL,"
                    + " started_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
                    + " ended_at TIMESTAMP(6) NULL,"
                    + " reason VARCHAR(1000) NOT NULL) ENGINE = InnoDB");
        }

        static List<String> install(FencedColumn table) {
            List<String> sql = new ArrayList<>(uninstall(table));
            String column = table.tokenColumn();
            String name = table.bareName();
            String noToken = "SIGNAL SQLSTATE '" + NO_TOKEN_STATE + "' SET MESSAGE_TEXT = 'fenceguard: %s on fenced table "
                    + name + " without a fencing token (trigger mode): write through the guard under a lease, or in a"
                    + " maintenance scope';";
            String wrongToken = "SIGNAL SQLSTATE '" + NO_TOKEN_STATE + "' SET MESSAGE_TEXT = 'fenceguard: %s on fenced"
                    + " table " + name + " leaves " + column + " at a value that is not the token the guard set (trigger mode)';";
            String stale = "IF OLD." + column + " > @fenceguard_token THEN SET msg = CONCAT("
                    + "'fenceguard: stale fencing token ', @fenceguard_token, ' on table " + name
                    + ", row carries token ', OLD." + column + "); SIGNAL SQLSTATE '40F01' SET MESSAGE_TEXT = msg;"
                    + " END IF;";
            sql.add(trigger(table, "insert", "INSERT", "IF @fenceguard_token IS NULL THEN " + noToken.formatted("INSERT")
                    + " END IF; IF NEW." + column + " IS NULL OR NEW." + column + " <> @fenceguard_token THEN "
                    + wrongToken.formatted("INSERT") + " END IF;"));
            sql.add(trigger(table, "update", "UPDATE", "IF @fenceguard_token IS NULL THEN " + noToken.formatted("UPDATE")
                    + " END IF; " + stale + " IF NEW." + column + " IS NULL OR NEW." + column
                    + " <> @fenceguard_token THEN " + wrongToken.formatted("UPDATE") + " END IF;"));
            sql.add(trigger(table, "delete", "DELETE", "IF @fenceguard_token IS NULL THEN " + noToken.formatted("DELETE")
                    + " END IF; " + stale));
            return sql;
        }

        private static String trigger(FencedColumn table, String suffix, String event, String checks) {
            return "CREATE TRIGGER " + table.schemaPrefix() + "fenceguard_" + table.bareName() + "_" + suffix
                    + " BEFORE " + event + " ON " + table.table() + " FOR EACH ROW BEGIN DECLARE msg VARCHAR(512);"
                    + " IF NOT " + IN_MAINTENANCE
                    + " THEN " + checks + " END IF; END";
        }

        static List<String> uninstall(FencedColumn table) {
            List<String> sql = new ArrayList<>();
            for (String suffix : List.of("insert", "update", "delete")) {
                sql.add("DROP TRIGGER IF EXISTS " + table.schemaPrefix() + "fenceguard_" + table.bareName() + "_" + suffix);
            }
            return sql;
        }
    }
}
