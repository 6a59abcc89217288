package io.fenceguard.jdbc.lease;

import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The highest token {@link JdbcLeaseProvider} has minted for a resource: the {@code token} column of its row in the
 * lease table, read on the provider's own DataSource (the primary the grants were written to; every grant commits
 * before it is answered, so a committed read sees it). The row is never deleted by the provider, so it outlives
 * releases and expiries; empty when there is no row (never granted, or someone deleted it: its counter is lost).
 * For {@code MarkHealing} on the admission side; give it the DataSource and configuration of the provider.
 */
public final class JdbcIssuedTokens implements IssuedTokens {

    private final DataSource dataSource;
    private final String table;
    private final String sql;
    private final int timeoutSeconds;

    private JdbcIssuedTokens(DataSource dataSource, JdbcLeaseConfig config) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.table = config.tableName();
        this.sql = "SELECT token FROM " + config.tableName() + " WHERE resource = ?";
        this.timeoutSeconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, config.statementTimeout().toSeconds()));
    }

    /** The tokens minted by a {@link JdbcLeaseProvider} on {@code dataSource} with {@code config}. */
    public static JdbcIssuedTokens of(DataSource dataSource, JdbcLeaseConfig config) {
        return new JdbcIssuedTokens(dataSource, Objects.requireNonNull(config, "config"));
    }

    /** @throws IllegalStateException when the database cannot be reached or the statement fails */
    @Override
    public Optional<FencingToken> highestIssued(ResourceName resource) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setQueryTimeout(timeoutSeconds);
            s.setString(1, resource.value());
            try (ResultSet rs = s.executeQuery()) {
                Optional<FencingToken> token = rs.next() ? Optional.of(FencingToken.of(rs.getLong(1))) : Optional.empty();
                if (!c.getAutoCommit()) {
                    c.commit();
                }
                return token;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the token of '" + resource + "' from the lease table: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "JdbcIssuedTokens[" + table + "]";
    }
}
