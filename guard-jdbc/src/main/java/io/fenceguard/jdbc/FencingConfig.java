package io.fenceguard.jdbc;

import io.fenceguard.core.RefusalListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link FencedDataSource} fences: immutable, built with {@link #builder()}. Statements are
 * fenced with the innermost lease bound in {@link io.fenceguard.core.LeaseContext}.
 */
public final class FencingConfig {

    /**
     * The high-water table the fenceguard-db migrations create. It keeps its first name, {@code fenceguard_gate}:
     * renaming it under a rolling deploy would split the marks between instances on the old table and on the new
     * one (the old ones keep claiming the old table), which lets through exactly the stale write fencing stops; and
     * the trigger functions and operators' queries name it.
     */
    public static final String DEFAULT_HIGH_WATER_TABLE = "fenceguard_gate";
    public static final int DEFAULT_PLAN_CACHE_SIZE = 4096;

    private final List<FencedTable> tables;
    private final ClaimMode claimMode;
    private final String highWaterTable;
    private final SqlDialect dialect;
    private final int planCacheSize;
    private final boolean triggerMode;
    private final List<String> allowedRoutines;
    private final boolean verifyCatalog;
    private final RefusalListener refusalListener;

    private FencingConfig(Builder b) {
        this.tables = List.copyOf(b.tables);
        this.claimMode = Objects.requireNonNull(b.claimMode, "claimMode");
        this.highWaterTable = FencedTable.of(b.highWaterTable).qualifiedName();
        this.dialect = b.dialect;
        if (b.planCacheSize < 16) {
            throw new IllegalArgumentException("planCacheSize must be at least 16, got " + b.planCacheSize);
        }
        this.planCacheSize = b.planCacheSize;
        this.triggerMode = b.triggerMode;
        this.allowedRoutines = List.copyOf(b.allowedRoutines);
        this.verifyCatalog = b.verifyCatalog;
        this.refusalListener = b.refusalListener;
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<FencedTable> tables() {
        return tables;
    }

    /** The fenced table a reference as written in SQL denotes, if any. */
    public Optional<FencedTable> fencedTable(String sqlSchema, String sqlName) {
        for (FencedTable table : tables) {
            if (table.matches(sqlSchema, sqlName)) {
                return Optional.of(table);
            }
        }
        return Optional.empty();
    }

    /** When a transaction claims its resource's high-water mark. */
    public ClaimMode claimMode() {
        return claimMode;
    }

    /** The high-water table, one row per resource holding its mark, schema-qualified as configured. */
    public String highWaterTable() {
        return highWaterTable;
    }

    /** The dialect, or empty to detect it from the first connection. */
    public Optional<SqlDialect> dialect() {
        return Optional.ofNullable(dialect);
    }

    public int planCacheSize() {
        return planCacheSize;
    }

    /**
     * Whether the guard sets the session's token for the database's triggers before fenced writes
     * ({@code fenceguard.token} on PostgreSQL, {@code @fenceguard_token} on MariaDB) and clears it before
     * other work and when the connection closes; see {@code io.fenceguard.db.FenceguardTriggers}.
     */
    public boolean triggerMode() {
        return triggerMode;
    }

    /**
     * Routines (functions, procedures) that statements on a fenced connection may call outside
     * {@link Unfenced}: the application vouches that they do not write fenced tables.
     */
    public List<String> allowedRoutines() {
        return allowedRoutines;
    }

    /** Whether the first connection reads the catalog and fails on a misconfiguration (default true). */
    public boolean verifyCatalog() {
        return verifyCatalog;
    }

    /** Told of every refused statement ({@link Builder#onRefusal}); by default nobody. */
    public RefusalListener refusalListener() {
        return refusalListener;
    }

    /**
     * Same tables, claim mode, high-water table, dialect, plan cache size, trigger mode, allowed routines and
     * catalog check (the refusal listener is not compared: it observes, it does not change what is fenced).
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof FencingConfig that && tables.equals(that.tables) && claimMode == that.claimMode
                && highWaterTable.equals(that.highWaterTable) && Objects.equals(dialect, that.dialect)
                && planCacheSize == that.planCacheSize && triggerMode == that.triggerMode
                && allowedRoutines.equals(that.allowedRoutines)
                && verifyCatalog == that.verifyCatalog;
    }

    @Override
    public int hashCode() {
        return Objects.hash(tables, claimMode, highWaterTable, dialect, planCacheSize, triggerMode, allowedRoutines,
                verifyCatalog);
    }

    @Override
    public String toString() {
        return "FencingConfig[tables " + tables + ", claim " + claimMode + " on " + highWaterTable
                + (dialect == null ? "" : ", " + dialect) + (triggerMode ? ", trigger mode" : "") + "]";
    }

    public static final class Builder {
        private final List<FencedTable> tables = new ArrayList<>();
        private ClaimMode claimMode = ClaimMode.EXPLICIT;
        private String highWaterTable = DEFAULT_HIGH_WATER_TABLE;
        private SqlDialect dialect;
        private int planCacheSize = DEFAULT_PLAN_CACHE_SIZE;
        private boolean triggerMode;
        private final List<String> allowedRoutines = new ArrayList<>();
        private boolean verifyCatalog = true;
        private RefusalListener refusalListener = RefusalListener.none();

        private Builder() {
        }

        /**
         * Tells {@code listener} of every statement refused (for metrics and logs), once per refusal on the
         * caller's thread, just before the refusal is thrown to the caller unchanged: layer
         * {@link io.fenceguard.core.Refusal.Layer#JDBC}, reason {@code stale} for a {@link StaleTokenException} (the
         * database refused the older token), else the {@link FencingRefusedException} reason (nothing was sent);
         * the original is the exception, {@code where} its SQL. What the listener throws is logged and ignored.
         */
        public Builder onRefusal(RefusalListener listener) {
            this.refusalListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Sets the session's token for the triggers that {@code FenceguardTriggers.install} puts on the
         * fenced tables (trigger mode). Off by default: without the triggers it only costs round trips.
         */
        public Builder triggerMode(boolean enabled) {
            this.triggerMode = enabled;
            return this;
        }

        /**
         * Lets statements call these routines outside {@link Unfenced} although they may write
         * ({@code [schema.]name}, as in SQL); by default a call of a user routine that may write
         * (PostgreSQL: VOLATILE; MariaDB: any stored routine), {@code CALL} and {@code DO} are refused.
         */
        public Builder allowRoutine(String... routines) {
            for (String routine : routines) {
                allowedRoutines.add(Objects.requireNonNull(routine, "routine").trim());
            }
            return this;
        }

        /** Whether the first connection checks the configuration against the catalog (default true). */
        public Builder verifyCatalog(boolean verify) {
            this.verifyCatalog = verify;
            return this;
        }

        /** Fences {@code [schema.]table} with the token column {@value FencedTable#DEFAULT_TOKEN_COLUMN}. */
        public Builder fence(String table) {
            return fence(FencedTable.of(table));
        }

        public Builder fence(FencedTable table) {
            tables.add(Objects.requireNonNull(table, "table"));
            return this;
        }

        /** When a transaction claims its resource's high-water mark (default {@link ClaimMode#EXPLICIT}). */
        public Builder claimMode(ClaimMode mode) {
            this.claimMode = mode;
            return this;
        }

        /** The high-water table, {@code [schema.]table} (default {@value #DEFAULT_HIGH_WATER_TABLE}). */
        public Builder highWaterTable(String table) {
            this.highWaterTable = table;
            return this;
        }

        public Builder dialect(SqlDialect dialect) {
            this.dialect = dialect;
            return this;
        }

        public Builder planCacheSize(int size) {
            this.planCacheSize = size;
            return this;
        }

        public FencingConfig build() {
            return new FencingConfig(this);
        }
    }
}
