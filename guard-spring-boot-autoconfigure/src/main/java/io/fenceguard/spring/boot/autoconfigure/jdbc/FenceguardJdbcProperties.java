package io.fenceguard.spring.boot.autoconfigure.jdbc;

import io.fenceguard.jdbc.ClaimMode;
import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.SqlDialect;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * {@code fenceguard.jdbc.*}: which DataSources are fenced and how. Each physical DataSource bean is
 * wrapped once in a {@link io.fenceguard.jdbc.FencedDataSource}; delegating and routing DataSources
 * are fenced through their targets.
 */
@ConfigurationProperties(prefix = "fenceguard.jdbc")
public class FenceguardJdbcProperties {

    /** Whether DataSource beans are fenced at all. Default: true. */
    private boolean enabled = true;

    /**
     * Fenced tables, as [schema.]table written as in SQL: a part that needs quotes (mixed case on
     * PostgreSQL, spaces, symbols) is quoted ("Order Lines", `Order Lines`). Writes to them carry the
     * token of the lease in context and are refused without one. Default: none.
     */
    private List<String> tables = new ArrayList<>();

    /** Token column of the fenced tables that name none of their own in token-columns. Default: current_token. */
    private String tokenColumn = "current_token";

    /** Token column per fenced table, where it differs from token-column. Default: none. */
    private Map<String, String> tokenColumns = new LinkedHashMap<>();

    /**
     * When guarded transactions claim their resource's high-water row: explicit (only HighWaterMarks.claim) or
     * first-statement (before the first statement of every transaction under a lease). Default: explicit.
     */
    private ClaimMode claimMode = ClaimMode.EXPLICIT;

    /**
     * The high-water table, one row per resource holding its high-water mark, created by the guard's migrations
     * (fenceguard-db). Default: fenceguard_gate (the table keeps its first name: see
     * FencingConfig.DEFAULT_HIGH_WATER_TABLE).
     */
    private String highWaterTable = "fenceguard_gate";

    /** The database dialect; detected from the first connection when not set. Default: detected. */
    private SqlDialect dialect;

    /** Rewrite plans kept per DataSource, one per distinct SQL string; at least 16. Default: 4096. */
    private int planCacheSize = 4096;

    /**
     * DataSource bean names left unfenced, e.g. a DataSource for reports; delegating or routing
     * DataSources over such a bean leave it unfenced as well. Default: none.
     */
    private List<String> excludedBeans = new ArrayList<>();

    /**
     * Whether the application's Flyway migrations and SQL scripts (spring.sql.init: schema.sql, data.sql)
     * run unfenced, on the DataSource under the fence, so that they may create and seed fenced tables.
     * Default: true.
     */
    private boolean unfencedMigrations = true;

    /**
     * Trigger mode: before a fenced write the guard sets the session's token (fenceguard.token on
     * PostgreSQL, @fenceguard_token on MariaDB) that the database triggers of fenceguard.db.triggers
     * check, and clears it for other work and when the connection closes. Turn it on with the triggers.
     * Default: false.
     */
    private boolean triggerMode = false;

    /**
     * Whether the first connection checks the fenced tables against the database's catalog (each
     * exists with its token column; children and partitions are fenced with it; views, rules and
     * parents over it are refused for writes; fenceguard_stale is found schema-qualified) and fails
     * with one line naming the fix. Default: true.
     */
    private boolean verifyCatalog = true;

    /**
     * Routines ([schema.]name) that statements outside Unfenced may call although they may write:
     * the application vouches that they do not write fenced tables. Other calls of user routines that
     * may write, CALL and DO are refused outside Unfenced. Default: none.
     */
    private List<String> allowedRoutines = new ArrayList<>();

    /** {@code fenceguard.jdbc.*} bound from {@code environment} as Boot binds it, for beans created before binding. */
    public static FenceguardJdbcProperties bind(Environment environment) {
        return Binder.get(environment).bind("fenceguard.jdbc", FenceguardJdbcProperties.class)
                .orElseGet(FenceguardJdbcProperties::new);
    }

    FencingConfig toConfig() {
        return toConfig(io.fenceguard.core.RefusalListener.none());
    }

    /** The configuration, telling {@code refusals} of every refused statement. */
    FencingConfig toConfig(io.fenceguard.core.RefusalListener refusals) {
        FencingConfig.Builder builder = FencingConfig.builder()
                .onRefusal(refusals)
                .claimMode(claimMode)
                .highWaterTable(highWaterTable)
                .dialect(dialect)
                .planCacheSize(planCacheSize)
                .triggerMode(triggerMode)
                .verifyCatalog(verifyCatalog)
                .allowRoutine(allowedRoutines.toArray(String[]::new));
        for (String table : tables) {
            builder.fence(FencedTable.of(table, tokenColumns.getOrDefault(table, tokenColumn)));
        }
        return builder.build();
    }

    public boolean isVerifyCatalog() {
        return verifyCatalog;
    }

    public void setVerifyCatalog(boolean verifyCatalog) {
        this.verifyCatalog = verifyCatalog;
    }

    public List<String> getAllowedRoutines() {
        return allowedRoutines;
    }

    public void setAllowedRoutines(List<String> allowedRoutines) {
        this.allowedRoutines = allowedRoutines;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public List<String> getTables() {
        return tables;
    }

    public void setTables(List<String> tables) {
        this.tables = tables;
    }

    public String getTokenColumn() {
        return tokenColumn;
    }

    public void setTokenColumn(String tokenColumn) {
        this.tokenColumn = tokenColumn;
    }

    public Map<String, String> getTokenColumns() {
        return tokenColumns;
    }

    public void setTokenColumns(Map<String, String> tokenColumns) {
        this.tokenColumns = tokenColumns;
    }

    public ClaimMode getClaimMode() {
        return claimMode;
    }

    public void setClaimMode(ClaimMode claimMode) {
        this.claimMode = claimMode;
    }

    public String getHighWaterTable() {
        return highWaterTable;
    }

    public void setHighWaterTable(String highWaterTable) {
        this.highWaterTable = highWaterTable;
    }

    /** Former name of claim-mode, still bound. */
    @Deprecated(since = "0.1.0")
    @DeprecatedConfigurationProperty(replacement = "fenceguard.jdbc.claim-mode", since = "0.1.0")
    public ClaimMode getGateMode() {
        return claimMode;
    }

    @Deprecated(since = "0.1.0")
    public void setGateMode(ClaimMode gateMode) {
        this.claimMode = gateMode;
    }

    /** Former name of high-water-table, still bound. */
    @Deprecated(since = "0.1.0")
    @DeprecatedConfigurationProperty(replacement = "fenceguard.jdbc.high-water-table", since = "0.1.0")
    public String getGateTable() {
        return highWaterTable;
    }

    @Deprecated(since = "0.1.0")
    public void setGateTable(String gateTable) {
        this.highWaterTable = gateTable;
    }

    public SqlDialect getDialect() {
        return dialect;
    }

    public void setDialect(SqlDialect dialect) {
        this.dialect = dialect;
    }

    public int getPlanCacheSize() {
        return planCacheSize;
    }

    public void setPlanCacheSize(int planCacheSize) {
        this.planCacheSize = planCacheSize;
    }

    public boolean isTriggerMode() {
        return triggerMode;
    }

    public void setTriggerMode(boolean triggerMode) {
        this.triggerMode = triggerMode;
    }

    public boolean isUnfencedMigrations() {
        return unfencedMigrations;
    }

    public void setUnfencedMigrations(boolean unfencedMigrations) {
        this.unfencedMigrations = unfencedMigrations;
    }

    public List<String> getExcludedBeans() {
        return excludedBeans;
    }

    public void setExcludedBeans(List<String> excludedBeans) {
        this.excludedBeans = excludedBeans;
    }
}
