package io.fenceguard.testsupport;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/** zonky's embedded PostgreSQL, from Maven; loaded only once {@link TestServers} has seen it on the class path. */
final class EmbeddedPostgresServer {

    private EmbeddedPostgresServer() {
    }

    /** Starts one on a free port; it stops when the JVM exits. */
    static JdbcEndpoint start() {
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (IOException e) {
                    // the JVM is exiting; the process dies with it
                }
            }));
            return new JdbcEndpoint(pg.getJdbcUrl("postgres", "postgres"), "postgres", "");
        } catch (IOException e) {
            throw new UncheckedIOException("could not start embedded PostgreSQL", e);
        }
    }
}
