package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.jdbc.SqlDialect;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.regex.Pattern;

/**
 * The session settings that change how the server reads SQL text: backslash escapes in plain strings
 * (MariaDB unless {@code NO_BACKSLASH_ESCAPES}, PostgreSQL when {@code standard_conforming_strings}
 * is off) and whether {@code "…"} quotes an identifier (MariaDB {@code ANSI_QUOTES}). {@link #UNKNOWN}
 * when the guard cannot tell: then only text that every setting reads alike is certain.
 */
public record SessionSyntax(boolean backslashEscapes, boolean ansiQuotes, boolean known) {

    static final SessionSyntax UNKNOWN = new SessionSyntax(false, false, false);
    private static final SessionSyntax MARIADB_DEFAULTS = new SessionSyntax(true, false, true);
    private static final SessionSyntax STANDARD = new SessionSyntax(false, false, true);

    /** What a statement that changes these settings looks like (fail closed: any mention). */
    private static final Pattern CHANGES_SYNTAX = Pattern.compile(
            "(?is).*\\b(sql_mode|standard_conforming_strings)\\b.*|\\s*(reset|discard)\\s+all\\b.*");

    /** The settings as each dialect starts a session. */
    public static SessionSyntax defaults(SqlDialect dialect) {
        return switch (dialect) {
            case MARIADB -> MARIADB_DEFAULTS;
            case POSTGRESQL, H2 -> STANDARD;
        };
    }

    /** Every setting a session of {@code dialect} may have: the readings an unknown session must agree on. */
    static List<SessionSyntax> variants(SqlDialect dialect) {
        return switch (dialect) {
            case MARIADB -> List.of(new SessionSyntax(true, false, true), new SessionSyntax(false, false, true),
                    new SessionSyntax(true, true, true), new SessionSyntax(false, true, true));
            case POSTGRESQL -> List.of(new SessionSyntax(false, false, true), new SessionSyntax(true, false, true));
            case H2 -> List.of(new SessionSyntax(false, false, true));
        };
    }

    /** Whether running {@code sql} may change these settings (a SET of sql_mode, standard_conforming_strings, RESET ALL). */
    static boolean changedBy(String sql) {
        return CHANGES_SYNTAX.matcher(sql).matches();
    }

    /**
     * The settings of one connection. PostgreSQL's driver tracks {@code standard_conforming_strings}
     * itself (the server reports every change), so it is asked each time; MariaDB's {@code sql_mode} is
     * read once per physical connection and read again after a statement that may change it.
     */
    public static final class Tracker {

        private static final Map<Connection, SessionSyntax> MARIADB_SESSIONS = new WeakHashMap<>();

        private final Connection raw;
        private final SqlDialect dialect;
        private volatile SessionSyntax current;

        private Tracker(Connection raw, SqlDialect dialect, SessionSyntax current) {
            this.raw = raw;
            this.dialect = dialect;
            this.current = current;
        }

        /** Reads the settings of {@code raw} (no round trip on PostgreSQL, one per physical connection on MariaDB). */
        public static Tracker of(Connection raw, SqlDialect dialect) {
            return new Tracker(raw, dialect, read(raw, dialect));
        }

        /** Settings fixed from the outside, for tests and the planner's diagnostics. */
        static Tracker fixed(SessionSyntax syntax) {
            return new Tracker(null, null, syntax);
        }

        public SessionSyntax current() {
            if (dialect == SqlDialect.POSTGRESQL && raw != null) {
                SessionSyntax tracked = postgresTracked(raw);
                if (tracked != null) {
                    return tracked;
                }
            }
            return current;
        }

        /**
         * Called for every statement planned on this connection: one that may change the settings makes
         * them unknown for the rest of this connection's use, and read again at its next checkout.
         */
        public void observe(String sql) {
            // PostgreSQL's driver tracks standard_conforming_strings itself; only MariaDB's sql_mode needs this
            if (raw != null && dialect == SqlDialect.MARIADB && mentionsSqlMode(sql) && changedBy(sql)) {
                current = UNKNOWN;
                if (dialect == SqlDialect.MARIADB) {
                    Connection physical = physical(raw);
                    synchronized (MARIADB_SESSIONS) {
                        MARIADB_SESSIONS.remove(physical);
                    }
                }
            }
        }

        private static boolean mentionsSqlMode(String sql) {
            for (int i = sql.indexOf('_'); i >= 0; i = sql.indexOf('_', i + 1)) {
                if (i >= 3 && sql.regionMatches(true, i - 3, "sql_mode", 0, 8)) {
                    return true;
                }
            }
            return false;
        }

        private static SessionSyntax read(Connection raw, SqlDialect dialect) {
            try {
                return switch (dialect) {
                    case H2 -> defaults(dialect);
                    case POSTGRESQL -> {
                        SessionSyntax tracked = postgresTracked(raw);
                        yield tracked != null ? tracked
                                : new SessionSyntax(!"on".equalsIgnoreCase(query(raw, "SHOW standard_conforming_strings")),
                                        false, true);
                    }
                    case MARIADB -> {
                        Connection physical = physical(raw);
                        SessionSyntax known;
                        synchronized (MARIADB_SESSIONS) {
                            known = MARIADB_SESSIONS.get(physical);
                        }
                        if (known == null) {
                            known = ofSqlMode(query(raw, "SELECT @@SESSION.sql_mode"));
                            synchronized (MARIADB_SESSIONS) {
                                MARIADB_SESSIONS.put(physical, known);
                            }
                        }
                        yield known;
                    }
                };
            } catch (SQLException | RuntimeException e) {
                return UNKNOWN;
            }
        }

        static SessionSyntax ofSqlMode(String sqlMode) {
            String mode = "," + (sqlMode == null ? "" : sqlMode.toUpperCase(Locale.ROOT).replace(" ", "")) + ",";
            boolean ansiQuotes = mode.contains(",ANSI_QUOTES,") || mode.contains(",ANSI,")
                    || mode.contains(",DB2,") || mode.contains(",ORACLE,") || mode.contains(",POSTGRESQL,")
                    || mode.contains(",MSSQL,") || mode.contains(",MAXDB,");
            return new SessionSyntax(!mode.contains(",NO_BACKSLASH_ESCAPES,"), ansiQuotes, true);
        }

        private static final Map<Class<?>, Method> SCS_GETTERS = new java.util.concurrent.ConcurrentHashMap<>();

        /** pgjdbc's own view ({@code BaseConnection.getStandardConformingStrings()}), or null without it. */
        private static SessionSyntax postgresTracked(Connection raw) {
            try {
                Connection physical = physical(raw);
                Method getter = SCS_GETTERS.computeIfAbsent(physical.getClass(), type -> {
                    try {
                        Method method = type.getMethod("getStandardConformingStrings");
                        method.setAccessible(true);
                        return method;
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        return NO_METHOD;
                    }
                });
                if (getter == NO_METHOD) {
                    return null;
                }
                boolean on = (Boolean) getter.invoke(physical);
                return new SessionSyntax(!on, false, true);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }

        private static final Method NO_METHOD;

        static {
            try {
                NO_METHOD = Object.class.getMethod("toString");
            } catch (NoSuchMethodException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** The driver's connection under any pool proxy. */
        private static Connection physical(Connection raw) {
            try {
                Connection inner = raw.unwrap(Connection.class);
                return inner == null ? raw : inner;
            } catch (SQLException | RuntimeException e) {
                return raw;
            }
        }

        private static String query(Connection raw, String sql) throws SQLException {
            try (Statement statement = raw.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }
}
