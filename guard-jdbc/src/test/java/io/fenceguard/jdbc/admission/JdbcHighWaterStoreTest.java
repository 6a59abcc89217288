package io.fenceguard.jdbc.admission;

import static io.fenceguard.admission.support.HighWaterStoreContract.assertAdmitClaiming;
import static io.fenceguard.admission.support.HighWaterStoreContract.assertBatchRule;
import static io.fenceguard.admission.support.HighWaterStoreContract.assertNonce;
import static io.fenceguard.admission.support.HighWaterStoreContract.assertReset;
import static io.fenceguard.admission.support.HighWaterStoreContract.assertRule;
import static io.fenceguard.admission.support.HighWaterStoreContract.assertSigned;
import static io.fenceguard.admission.support.HighWaterStoreContract.fence;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.IdempotentAdmissionStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.ResourceName;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.admission.support.Stores;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * The admission rule on the JDBC store, in PostgreSQL's dialect and the locking-read one on H2 and MariaDB. (The
 * store in memory is tested in fenceguard-admission, the Redis store in fenceguard-redis.)
 */
class JdbcHighWaterStoreTest {

    @Test
    void postgres() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 2)) {
            assertRule(JdbcHighWaterStore.of(ds));
            assertBatchRule(JdbcHighWaterStore.of(ds));
            assertReset(JdbcHighWaterStore.of(ds));
            assertNonce(JdbcHighWaterStore.of(ds));
            assertSigned(JdbcHighWaterStore.of(ds));
            assertAdmitClaiming(JdbcHighWaterStore.of(ds));
        }
    }

    /**
     * On PostgreSQL an admission with an idempotency key is one statement (nonce, mark and claim), whatever the
     * claim answers; the purges now and then are statements of their own and not counted.
     */
    @Test
    void postgresAdmissionWithAKeyIsOneStatement() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 2)) {
            java.util.List<String> statements = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            JdbcHighWaterStore store = JdbcHighWaterStore.of(counting(ds, statements));
            ResourceName r = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
            java.time.Instant expires = java.time.Instant.now().plusSeconds(30);
            IdempotencyStore.Claim.Kind[] kinds = {IdempotencyStore.Claim.Kind.FIRST,
                    IdempotencyStore.Claim.Kind.IN_PROGRESS, IdempotencyStore.Claim.Kind.OTHER_REQUEST};
            String[] fingerprints = {"fp-1", "fp-1", "fp-2"};
            for (int i = 0; i < kinds.length; i++) {
                statements.clear();
                IdempotentAdmissionStore.ClaimedAdmission answer = store.admitClaiming(fence(r, 7),
                        new SignedAdmissionStore.Nonce("k1:" + UUID.randomUUID(), expires), "key-1", fingerprints[i]);
                assertThat(answer.claim().kind()).isEqualTo(kinds[i]);
                assertThat(admissionStatements(statements)).as(kinds[i].toString()).hasSize(1);
            }
        }
    }

    /**
     * On PostgreSQL a signed admission is one statement (one round trip, one commit), whatever its outcome and
     * also for a replay; the nonce purge now and then is a statement of its own and not counted.
     */
    @Test
    void postgresSignedAdmissionIsOneStatement() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 2)) {
            java.util.List<String> statements = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            JdbcHighWaterStore store = JdbcHighWaterStore.of(counting(ds, statements));
            ResourceName r = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
            java.time.Instant expires = java.time.Instant.now().plusSeconds(30);
            String nonce = "k1:" + UUID.randomUUID();
            long[] tokens = {5, 5, 4};
            Outcome[] outcomes = {Outcome.CLAIMED, Outcome.CONTINUED, Outcome.STALE};
            for (int i = 0; i < tokens.length; i++) {
                statements.clear();
                assertThat(store.admit(fence(r, tokens[i]), nonce + i, expires).orElseThrow().outcome())
                        .isEqualTo(outcomes[i]);
                assertThat(admissionStatements(statements)).as(outcomes[i].toString()).hasSize(1);
            }
            statements.clear();
            assertThat(store.admit(fence(r, 6), nonce + 0, expires)).isEmpty();
            assertThat(admissionStatements(statements)).as("a replay").hasSize(1);
        }
    }

    /**
     * Request-signed admissions of one fence that arrived together: each nonce counts once (used before, or twice
     * in the group: a replay), the fence is admitted once (the first fresh nonce claims, the others continue), a
     * stale token's nonces stay used, and a group of replays changes no mark.
     */
    static void assertSignedGroup(JdbcHighWaterStore store) {
        ResourceName r = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
        java.time.Instant expires = java.time.Instant.now().plusSeconds(30);
        String run = "k1:" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(store.firstUse(run + "-used", expires)).isTrue();
        var answers = store.admitEach(fence(r, 5), java.util.List.of(nonce(run + "-used", expires),
                nonce(run + "-1", expires), nonce(run + "-2", expires), nonce(run + "-1", expires),
                nonce(run + "-3", expires)));
        assertThat(answers).extracting(answer -> answer.map(Admission::outcome).orElse(null))
                .containsExactly(null, Outcome.CLAIMED, Outcome.CONTINUED, null, Outcome.CONTINUED);
        assertThat(store.admit(fence(r, 5), run + "-2", expires)).as("a nonce of the group, again").isEmpty();
        var stale = store.admitEach(fence(r, 4), java.util.List.of(nonce(run + "-4", expires), nonce(run + "-5", expires)));
        assertThat(stale).extracting(answer -> answer.orElseThrow().outcome()).containsExactly(Outcome.STALE, Outcome.STALE);
        assertThat(store.firstUse(run + "-5", expires)).as("a stale token's nonce is recorded").isFalse();
        var replays = store.admitEach(fence(r, 9), java.util.List.of(nonce(run + "-1", expires), nonce(run + "-4", expires)));
        assertThat(replays).allMatch(java.util.Optional::isEmpty);
        assertThat(store.admit(fence(r, 6)).outcome()).as("replays set no mark").isEqualTo(Outcome.CLAIMED);
    }

    private static SignedAdmissionStore.Nonce nonce(String value, java.time.Instant expires) {
        return new SignedAdmissionStore.Nonce(value, expires);
    }

    /** On PostgreSQL a group of request-signed admissions is one statement (on MariaDB: below, one per nonce). */
    @Test
    void signedGroupsOnPostgresInOneStatement() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 2)) {
            java.util.List<String> statements = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            JdbcHighWaterStore store = JdbcHighWaterStore.of(counting(ds, statements));
            assertSignedGroup(store);
            statements.clear();
            ResourceName r = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
            java.time.Instant expires = java.time.Instant.now().plusSeconds(30);
            String run = "k1:" + UUID.randomUUID();
            assertThat(store.admitEach(fence(r, 3), java.util.List.of(nonce(run + "a", expires), nonce(run + "b", expires),
                    nonce(run + "c", expires)))).allMatch(java.util.Optional::isPresent);
            assertThat(admissionStatements(statements)).as("statements for a group of three").hasSize(1);
        }
    }

    /**
     * Joining the caller's transaction, the admission rolls back with it but the nonce stays used: a replay after
     * the handler's rollback is refused. Without an open transaction it is the one-step admission.
     */
    @Test
    void postgresSignedAdmissionJoiningATransactionKeepsTheNonceOnRollback() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 4); var held = ds.getConnection()) {
            JdbcHighWaterStore plain = JdbcHighWaterStore.of(ds);
            JdbcHighWaterStore joined = plain.joiningTransactions(holding(held));
            ResourceName r = ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
            java.time.Instant expires = java.time.Instant.now().plusSeconds(30);
            String nonce = "k1:" + UUID.randomUUID();
            held.setAutoCommit(false);
            assertThat(joined.admit(fence(r, 7), nonce, expires).orElseThrow().outcome()).isEqualTo(Outcome.CLAIMED);
            held.rollback();
            assertThat(joined.admit(fence(r, 7), nonce, expires)).as("replayed after the rollback").isEmpty();
            held.rollback();
            assertThat(plain.admit(fence(r, 3)).outcome()).as("the claim rolled back").isEqualTo(Outcome.CLAIMED);
            assertSigned(plain.joiningTransactions(ds));
        }
    }

    /**
     * The statements other than the nonce purge (now and then) and the store's one look for its unlogged table that
     * {@code statements} recorded.
     */
    private static java.util.List<String> admissionStatements(java.util.List<String> statements) {
        synchronized (statements) {
            return statements.stream().filter(sql -> !sql.startsWith("DELETE FROM")
                    && !sql.startsWith("SELECT relpersistence")).toList();
        }
    }

    /** {@code target} recording the text of every statement its connections prepare or create. */
    static javax.sql.DataSource counting(javax.sql.DataSource target, java.util.List<String> statements) {
        return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(JdbcHighWaterStoreTest.class.getClassLoader(),
                new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    if (!method.getName().equals("getConnection")) {
                        return result;
                    }
                    java.sql.Connection connection = (java.sql.Connection) result;
                    return java.lang.reflect.Proxy.newProxyInstance(JdbcHighWaterStoreTest.class.getClassLoader(),
                            new Class<?>[] {java.sql.Connection.class}, (c, m, a) -> {
                                if (m.getName().startsWith("prepare")) {
                                    statements.add((String) a[0]);
                                } else if (m.getName().equals("createStatement")) {
                                    statements.add("createStatement");
                                }
                                return invoke(connection, m, a);
                            });
                });
    }

    /** A DataSource handing out {@code connection} (the caller's transaction's), left open when closed. */
    static javax.sql.DataSource holding(java.sql.Connection connection) {
        return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(JdbcHighWaterStoreTest.class.getClassLoader(),
                new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("getConnection")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    return java.lang.reflect.Proxy.newProxyInstance(JdbcHighWaterStoreTest.class.getClassLoader(),
                            new Class<?>[] {java.sql.Connection.class},
                            (c, m, a) -> m.getName().equals("close") ? null : invoke(connection, m, a));
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * PostgreSQL's batch in one transaction: batches over overlapping resources race, in opposite orders; none
     * fails, each resource ends at the highest token any batch presented, and every token at or above each
     * batch's view was admitted exactly as a sequential order allows (a claim per resource never goes backwards).
     */
    @Test
    void postgresBatchesRaceOnOverlappingResources() throws Exception {
        try (var ds = Stores.postgres(Stores.migratedPostgresSchema(), 8)) {
            JdbcHighWaterStore store = JdbcHighWaterStore.of(ds);
            String run = UUID.randomUUID().toString().substring(0, 8);
            java.util.List<ResourceName> resources = new java.util.ArrayList<>();
            for (int i = 0; i < 6; i++) {
                resources.add(ResourceName.of("race:" + run + ":" + i));
            }
            var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
            try {
                var answers = new java.util.ArrayList<java.util.concurrent.Future<java.util.List<Admission>>>();
                for (int b = 1; b <= 16; b++) {
                    java.util.List<Fence> batch = new java.util.ArrayList<>();
                    for (ResourceName r : resources) {
                        batch.add(fence(r, b));
                    }
                    if (b % 2 == 0) {
                        java.util.Collections.reverse(batch);
                    }
                    answers.add(pool.submit(() -> store.admitAll(batch)));
                }
                for (var answer : answers) {
                    assertThat(answer.get()).hasSize(resources.size());
                }
            } finally {
                pool.shutdown();
            }
            for (ResourceName r : resources) {
                assertThat(store.admit(fence(r, 16)).outcome()).as(r.value()).isEqualTo(Outcome.CONTINUED);
            }
        }
    }

    @Test
    void h2LockingRead() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:hw" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        FenceguardMigrations.migrate(ds);
        assertRule(JdbcHighWaterStore.of(ds));
        assertBatchRule(JdbcHighWaterStore.of(ds));
        assertReset(JdbcHighWaterStore.of(ds));
        assertNonce(JdbcHighWaterStore.of(ds));
        assertSigned(JdbcHighWaterStore.of(ds));
        assertAdmitClaiming(JdbcHighWaterStore.of(ds));
    }

    /**
     * While another transaction holds the mark's row locked, a continuing and a stale token are decided at once; a
     * newer one waits for the row and, once that transaction gives up, claims it.
     */
    private static void continuingAdmissionTakesNoLock(javax.sql.DataSource ds, JdbcHighWaterStore store, String table)
            throws Exception {
        ResourceName r = ResourceName.of("held:" + UUID.randomUUID().toString().substring(0, 8));
        assertThat(store.admit(fence(r, 5)).outcome()).isEqualTo(Outcome.CLAIMED);
        try (var holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            try (var lock = holder.prepareStatement("SELECT token FROM " + table + " WHERE resource = ? FOR UPDATE")) {
                lock.setString(1, r.value());
                lock.executeQuery().close();
            }
            var pool = java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                var continued = pool.submit(() -> store.admit(fence(r, 5)));
                // Decided while the row is locked: it waits for no lock (without the unlocked read it would wait
                // until the holder ends, and the get would give up).
                assertThat(continued.get(20, java.util.concurrent.TimeUnit.SECONDS).outcome())
                        .isEqualTo(Outcome.CONTINUED);
                assertThat(pool.submit(() -> store.admit(fence(r, 4))).get(20, java.util.concurrent.TimeUnit.SECONDS)
                        .outcome()).isEqualTo(Outcome.STALE);
                var claim = pool.submit(() -> store.admit(fence(r, 6)));
                holder.rollback();
                assertThat(claim.get(60, java.util.concurrent.TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.CLAIMED);
            } finally {
                holder.rollback();
                pool.shutdownNow();
            }
        }
        assertThat(store.admit(fence(r, 5)).outcome()).isEqualTo(Outcome.STALE);
    }

    /** MariaDB takes the locking-read path; many first admissions of one resource race to insert its row. */
    @Test
    void mariadbLockingReadUnderConcurrentFirstAdmissions() throws Exception {
        io.fenceguard.test.support.JdbcEndpoint server = io.fenceguard.test.support.TestServers.mariadb();
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
                s.execute("CREATE TABLE IF NOT EXISTS fenceguard_http_nonce (nonce VARCHAR(200) NOT NULL PRIMARY KEY,"
                        + " expires_at DATETIME(3) NOT NULL)");
                // As the migrations leave it, also where an older one made the table.
                s.execute("ALTER TABLE fenceguard_http_nonce MODIFY nonce VARCHAR(200) NOT NULL");
            }
            try {
                JdbcHighWaterStore store = JdbcHighWaterStore.of(ds, table);
                assertRule(store);
                assertReset(store);
                assertNonce(store);
                assertSigned(store);
                assertSignedGroup(store);
                continuingAdmissionTakesNoLock(ds, store, table);
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
