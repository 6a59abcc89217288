package io.fenceguard.http;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.http.internal.HighWaterSql;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * High-water marks in a database table ({@value #DEFAULT_TABLE}, created by the {@code db} module's
 * migrations). On PostgreSQL one conditional upsert claims or leaves the row; elsewhere a locking
 * read and an insert or update run in one transaction.
 *
 * <p>Give it a DataSource that is not fenced by guard-jdbc: the store is what admits the token.
 */
public final class JdbcHighWaterStore implements HighWaterStore {

    public static final String DEFAULT_TABLE = "fenceguard_http_high_water";
    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final DataSource dataSource;
    private final HighWaterSql sql;

    private JdbcHighWaterStore(DataSource dataSource, HighWaterSql sql) {
        this.dataSource = dataSource;
        this.sql = sql;
    }

    /** The store on {@code table} (optionally schema-qualified), in the dialect of the database behind {@code dataSource}. */
    public static JdbcHighWaterStore of(DataSource dataSource, String table) {
        Objects.requireNonNull(dataSource, "dataSource");
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("a high-water table is an SQL identifier, optionally schema-qualified, got '"
                    + table + "'");
        }
        try (Connection connection = dataSource.getConnection()) {
            return new JdbcHighWaterStore(dataSource, HighWaterSql.forDatabase(connection, table));
        } catch (SQLException e) {
            throw new IllegalStateException("could not connect to the high-water store's database", e);
        }
    }

    public static JdbcHighWaterStore of(DataSource dataSource) {
        return of(dataSource, DEFAULT_TABLE);
    }

    @Override
    public Admission admit(Fence presented) {
        try (Connection connection = dataSource.getConnection()) {
            return sql.admit(connection, presented);
        } catch (SQLException e) {
            throw new FenceguardException("high-water store unavailable for '" + presented.resource() + "': "
                    + e.getMessage(), presented.resource(), presented.token(), e);
        }
    }

    @Override
    public String toString() {
        return "JdbcHighWaterStore[" + sql + "]";
    }
}
