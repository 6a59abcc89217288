package io.fenceguard.jdbc.internal.sql;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.internal.catalog.Catalog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The high-water claim per dialect: one conditional upsert. A newer token in the row reaches the stale
 * function and fails the statement; otherwise the row takes the token and stays locked by this
 * transaction, which orders every other claim of the resource after its end.
 */
public final class HighWaterClaims {

    private HighWaterClaims() {
    }

    /** The claim's text; parameters: the resource, then the token (on MariaDB the token four times). */
    public static String sql(SqlDialect dialect, String highWaterTable, String staleFunction) {
        return switch (dialect) {
            // A claim by the token the row holds already (the same holder's next transaction) only locks the
            // row: ON CONFLICT locks it whether or not the WHERE lets the update happen, and writes no new
            // row version.
            case POSTGRESQL -> "INSERT INTO " + highWaterTable + " AS g (resource, token) VALUES (?, ?)"
                    + " ON CONFLICT (resource) DO UPDATE SET token = CASE WHEN g.token <= EXCLUDED.token"
                    + " THEN EXCLUDED.token ELSE " + staleFunction
                    + "('" + highWaterTable + "', g.token, EXCLUDED.token) END, claimed_at = CURRENT_TIMESTAMP"
                    + " WHERE g.token <> EXCLUDED.token";
            case MARIADB -> "INSERT INTO " + highWaterTable + " (resource, token) VALUES (?, ?)"
                    + " ON DUPLICATE KEY UPDATE token = CASE WHEN token <= ? THEN ? ELSE "
                    + staleFunction + "('" + highWaterTable + "', token, ?) END,"
                    + " claimed_at = CURRENT_TIMESTAMP";
            case H2 -> "MERGE INTO " + highWaterTable + " g USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS BIGINT)))"
                    + " AS s(resource, token) ON g.resource = s.resource"
                    + " WHEN MATCHED THEN UPDATE SET token = CASE WHEN g.token <= s.token THEN s.token ELSE "
                    + staleFunction + "('" + highWaterTable + "', g.token, s.token) END,"
                    + " claimed_at = CURRENT_TIMESTAMP"
                    + " WHEN NOT MATCHED THEN INSERT (resource, token) VALUES (s.resource, s.token)";
        };
    }

    /** Claims on {@code connection}, which must be the raw (unfenced) connection or any plain one. */
    public static void claim(Connection connection, SqlDialect dialect, String highWaterTable, Fence fence)
            throws SQLException {
        claim(connection, dialect, highWaterTable, Catalog.STALE_FUNCTION, fence);
    }

    /** With the stale function as the catalog check found it, schema-qualified. */
    public static void claim(Connection connection, SqlDialect dialect, String highWaterTable, String staleFunction,
                             Fence fence)
            throws SQLException {
        String sql = sql(dialect, highWaterTable, staleFunction);
        try (PreparedStatement claim = connection.prepareStatement(sql)) {
            long token = fence.token().value();
            claim.setString(1, fence.resource().value());
            claim.setLong(2, token);
            if (dialect == SqlDialect.MARIADB) {
                claim.setLong(3, token);
                claim.setLong(4, token);
                claim.setLong(5, token);
            }
            claim.executeUpdate();
        } catch (SQLException e) {
            throw StaleErrors.translate(e, fence, highWaterTable, "high-water claim: " + sql);
        }
    }
}
