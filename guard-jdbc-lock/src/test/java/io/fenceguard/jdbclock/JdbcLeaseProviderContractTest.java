package io.fenceguard.jdbclock;

import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.testsupport.contract.LeaseProviderContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;

/** The contract suite on PostgreSQL and on MariaDB, each in a schema or database of its own. */
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

    @Nested
    class MariaDb extends OnDatabase {
        @Override
        String kind() {
            return "mariadb";
        }
    }
}
