package io.fenceguard.jdbc.lease;

import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.test.contract.LeaseProviderContract;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;

/** The contract suite on PostgreSQL and on MariaDB, each in a schema or database of its own, and on H2. */
class JdbcLeaseProviderContractTest {

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class OnDatabase extends LeaseProviderContract {
        private ScratchDatabase database;

        abstract String kind();

        @BeforeAll
        void createDatabase() {
            database = ScratchDatabase.on(kind());
        }

        @AfterAll
        void dropDatabase() {
            if (database != null) {
                database.close();
            }
        }

        @Override
        protected LeaseProvider createProvider() {
            return JdbcLeaseProvider.of(database.dataSource());
        }
    }

    @Nested
    class PostgreSql extends OnDatabase {
        @Override
        String kind() {
            return "postgresql";
        }
    }

    /** H2 in memory: for tests and single-process use, with the same SQL path as MariaDB. */
    @Nested
    class H2 extends LeaseProviderContract {
        private final JdbcDataSource dataSource = new JdbcDataSource();

        H2() {
            dataSource.setURL("jdbc:h2:mem:fg_lease_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
            dataSource.setUser("sa");
            JdbcLeaseSchema.create(dataSource);
        }

        @Override
        protected LeaseProvider createProvider() {
            return JdbcLeaseProvider.of(dataSource);
        }
    }

    @Nested
    class MariaDb extends OnDatabase {
        @Override
        String kind() {
            return "mariadb";
        }
    }
}
