package io.fenceguard.jdbc.bench;

import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.SqlDialect;
import io.fenceguard.jdbc.internal.proxy.JdbcGuard;
import java.util.concurrent.TimeUnit;
import io.fenceguard.test.support.JmhRun;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * JMH: what a fenced DataSource adds when a statement is prepared whose rewrite is already in the plan
 * cache (the common case: an application prepares the same few statements over and over), for a fenced
 * UPDATE (rewritten) and a SELECT (passed through unchanged); the UPDATE both as the very string that was
 * cached (a constant) and as an equal string of its own (built elsewhere: the lookup compares the text).
 *
 * <pre>
 * ./mvnw -B -pl guard-jdbc -Pbench -DskipTests verify
 *   -Dbench.jmh.forks=1 -Dbench.jmh.warmup=2 -Dbench.jmh.iterations=3 -Dbench.jmh.time=1 (seconds per iteration)
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PlanCacheBenchmark {

    private static final String TABLE = "fg_bench";
    static final String UPDATE = "UPDATE " + TABLE + " SET v = v + ? WHERE id = ?";
    static final String SELECT = "SELECT v FROM " + TABLE + " WHERE id = ?";

    private JdbcGuard guard;
    private String updateCopy;

    @Setup
    public void setUp() {
        guard = new JdbcGuard(FencingConfig.builder().fence(TABLE).dialect(SqlDialect.POSTGRESQL)
                .verifyCatalog(false).build());
        for (String sql : new String[] {UPDATE, SELECT, "DELETE FROM " + TABLE + " WHERE id = ?"}) {
            guard.preparedSql(sql);
        }
        updateCopy = new String(UPDATE.toCharArray());
        if (guard.preparedSql(UPDATE).equals(UPDATE)) {
            throw new IllegalStateException("the UPDATE was not rewritten: " + guard.preparedSql(UPDATE));
        }
    }

    @Benchmark
    public String cachedFencedUpdate() {
        return guard.preparedSql(UPDATE);
    }

    @Benchmark
    public String cachedFencedUpdateEqualText() {
        return guard.preparedSql(updateCopy);
    }

    @Benchmark
    public String cachedSelect() {
        return guard.preparedSql(SELECT);
    }

    public static void main(String[] args) throws Exception {
        JmhRun.printResults(PlanCacheBenchmark.class, "fenceguard JDBC plan cache (JMH, average time per lookup)",
                name -> name.contains("cachedFencedUpdate") ? "  (goal <= 1 µs)" : "");
    }
}
