package io.fenceguard.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.http.Admission.Outcome;
import io.fenceguard.http.support.Stores;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * The admission rule on every store of this module, including the locking-read dialect on H2 and
 * MariaDB. (The Redis store is tested in fenceguard-redis, which it belongs to.)
 */
class HighWaterStoresTest {

    static Fence fence(ResourceName resource, long token) {
        return new Fence(resource, FencingToken.of(token));
    }

    static void assertRule(HighWaterStore store) {
        ResourceName r = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
        Admission claimed = store.admit(fence(r, 5));
        assertThat(claimed.outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(claimed.presented()).isEqualTo(fence(r, 5));
        assertThat(store.admit(fence(r, 5)).outcome()).isEqualTo(Outcome.CONTINUED);
        Admission stale = store.admit(fence(r, 4));
        assertThat(stale.outcome()).isEqualTo(Outcome.STALE);
        assertThat(stale.presented()).isEqualTo(fence(r, 4));
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(5));
        assertThat(store.admit(fence(r, Long.MAX_VALUE)).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(store.admit(fence(r, Long.MAX_VALUE - 1)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(store.admit(fence(r, 6)).highWater()).isEqualTo(FencingToken.of(Long.MAX_VALUE));
    }

    @Test
    void inMemory() {
        assertRule(InMemoryHighWaterStore.create());
    }

    @Test
    void postgres() {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 2)) {
            assertRule(JdbcHighWaterStore.of(ds));
        }
    }

    @Test
    void h2LockingRead() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:hw" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        FenceguardMigrations.migrate(ds);
        assertRule(JdbcHighWaterStore.of(ds));
    }

    /** MariaDB takes the locking-read path; many first admissions of one resource race to insert its row. */
    @Test
    void mariadbLockingReadUnderConcurrentFirstAdmissions() throws Exception {
        io.fenceguard.testsupport.JdbcEndpoint server = io.fenceguard.testsupport.TestServers.mariadb();
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(server.url());
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(8);
        String table = "hw_" + UUID.randomUUID().toString().substring(0, 8);
        try (var ds = new com.zaxxer.hikari.HikariDataSource(config)) {
            try (var c = ds.getConnection(); var s = c.createStatement()) {
                s.execute("CREATE TABLE " + table + " (resource VARCHAR(200) NOT NULL PRIMARY KEY, token BIGINT NOT NULL,"
                        + " updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)");
            }
            try {
                JdbcHighWaterStore store = JdbcHighWaterStore.of(ds, table);
                assertRule(store);
                for (int round = 0; round < 20; round++) {
                    ResourceName r = ResourceName.of("race:" + round + ":" + UUID.randomUUID().toString().substring(0, 8));
                    var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
                    var outcomes = new java.util.ArrayList<java.util.concurrent.Future<Admission>>();
                    for (int t = 1; t <= 8; t++) {
                        long token = t;
                        outcomes.add(pool.submit(() -> store.admit(fence(r, token))));
                    }
                    for (var outcome : outcomes) {
                        assertThat(outcome.get().outcome()).isIn(Outcome.CLAIMED, Outcome.STALE);
                    }
                    pool.shutdown();
                    assertThat(store.admit(fence(r, 8)).outcome()).isEqualTo(Outcome.CONTINUED);
                }
            } finally {
                try (var c = ds.getConnection(); var s = c.createStatement()) {
                    s.execute("DROP TABLE " + table);
                }
            }
        }
    }
}
