package io.fenceguard.jdbc.lease.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.jdbc.lease.JdbcLeaseProvider;
import io.fenceguard.jdbc.lease.JdbcLeaseSchema;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.bench.PairedLockBenchmark;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Acquire + release on PostgreSQL: fenceguard's database provider (through {@link LeaseManager}) against
 * Spring Integration's {@link JdbcLockRegistry}, on one pool of ten connections to one database, each in
 * a schema of its own. fenceguard's grant is one upsert that also mints the token, its release one
 * update; the registry's lock is an update-or-insert in a transaction, its release a delete.
 *
 * <pre>./mvnw -B -pl guard-jdbc-lease -am -Dbench=jdbc-lease -DskipTests verify</pre>
 */
public final class JdbcLeaseBenchmark {

    private static volatile long sink;

    public static void main(String[] args) {
        PairedLockBenchmark.runAndExit("database lease benchmark", JdbcLeaseBenchmark::measure);
    }

    private static boolean measure() throws Exception {
        try (ScratchSpace scratch = ScratchSpace.create(TestServers.postgres(), "fgbench");
             HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(scratch.jdbcUrl());
            pool.setUsername(scratch.server().user());
            pool.setPassword(scratch.server().password());
            if (scratch.schema() != null) {
                pool.setSchema(scratch.schema()); // the scratch schema, not the server's default
            }
            pool.setMaximumPoolSize(10);
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                System.out.println("database: " + c.getMetaData().getDatabaseProductName() + " "
                        + c.getMetaData().getDatabaseProductVersion() + " at " + scratch.server().url());
                s.execute("CREATE TABLE INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL,"
                        + " CLIENT_ID CHAR(36), CREATED_DATE TIMESTAMP NOT NULL, EXPIRED_AFTER TIMESTAMP NOT NULL,"
                        + " CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))");
            }
            JdbcLeaseSchema.create(pool);
            DefaultLockRepository repository = new DefaultLockRepository(pool);
            repository.setTransactionManager(new DataSourceTransactionManager(pool));
            repository.afterPropertiesSet();
            repository.afterSingletonsInstantiated();
            repository.start();
            JdbcLockRegistry registry = new JdbcLockRegistry(repository);
            try (JdbcLeaseProvider provider = JdbcLeaseProvider.of(pool);
                 LeaseManager manager = LeaseManager.of(provider)) {
                return PairedLockBenchmark.named("PostgreSQL, acquire + release")
                        .anchor("Spring Integration JdbcLockRegistry", resource -> {
                            Lock lock = registry.obtain(resource);
                            lock.lock();
                            lock.unlock();
                        })
                        .measure("fenceguard JdbcLeaseProvider", resource -> {
                            try (Lease lease = manager.acquire(resource, Duration.ofSeconds(10))) {
                                sink += lease.token().value();
                            }
                        })
                        .run();
            } finally {
                repository.close();
            }
        }
    }
}
