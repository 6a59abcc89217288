package io.fenceguard.test.support;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/** zonky's embedded PostgreSQL, from Maven; loaded only once {@link TestServers} has seen it on the class path. */
final class EmbeddedPostgresServer {

    private EmbeddedPostgresServer() {
    }

    /**
     * Starts one on {@code port} in {@code data} (initialized there when empty, kept when closed), with
     * {@code config} as server settings; closing it stops it.
     */
    static java.io.Closeable startIn(java.nio.file.Path data, int port, java.util.Map<String, String> config)
            throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false)
                .setPort(port);
        config.forEach(builder::setServerConfig);
        return builder.start();
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
