package io.fenceguard.autoconfigure.jdbc;

import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.GateMode;
import io.fenceguard.jdbc.SqlDialect;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code guard.jdbc.*}: which DataSources are wrapped and how they fence. */
@ConfigurationProperties(prefix = "guard.jdbc")
public class FenceguardJdbcProperties {

    /** Whether DataSource beans are wrapped at all. */
    private boolean enabled = true;

    /** Fenced tables, as [schema.]table. */
    private List<String> tables = new ArrayList<>();

    /** Token column of the fenced tables that do not name their own in token-columns. */
    private String tokenColumn = FencedTable.DEFAULT_TOKEN_COLUMN;

    /** Token column per fenced table, where it differs from token-column. */
    private Map<String, String> tokenColumns = new LinkedHashMap<>();

    /** When guarded transactions claim their resource's gate row. */
    private GateMode gateMode = GateMode.EXPLICIT;

    /** The gate table created by the fenceguard-db migrations. */
    private String gateTable = FencingConfig.DEFAULT_GATE_TABLE;

    /** The database dialect; detected from the first connection when not set. */
    private SqlDialect dialect;

    /** Rewrite plans kept per DataSource (one per distinct SQL string). */
    private int planCacheSize = FencingConfig.DEFAULT_PLAN_CACHE_SIZE;

    /** DataSource bean names left unwrapped, e.g. a migration-only DataSource. */
    private List<String> excludedBeans = new ArrayList<>();

    FencingConfig toConfig() {
        FencingConfig.Builder builder = FencingConfig.builder()
                .gateMode(gateMode)
                .gateTable(gateTable)
                .dialect(dialect)
                .planCacheSize(planCacheSize);
        for (String table : tables) {
            builder.fence(FencedTable.of(table, tokenColumns.getOrDefault(table, tokenColumn)));
        }
        return builder.build();
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

    public GateMode getGateMode() {
        return gateMode;
    }

    public void setGateMode(GateMode gateMode) {
        this.gateMode = gateMode;
    }

    public String getGateTable() {
        return gateTable;
    }

    public void setGateTable(String gateTable) {
        this.gateTable = gateTable;
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

    public List<String> getExcludedBeans() {
        return excludedBeans;
    }

    public void setExcludedBeans(List<String> excludedBeans) {
        this.excludedBeans = excludedBeans;
    }
}
