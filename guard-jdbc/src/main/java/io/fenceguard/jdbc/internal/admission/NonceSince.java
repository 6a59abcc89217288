package io.fenceguard.jdbc.internal.admission;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The unlogged table whose one row says since when every nonce committed without a WAL flush is still there, on
 * PostgreSQL. PostgreSQL empties an unlogged table in its recovery from a crash, and a standby or a restored backup has
 * it empty: exactly when commits that did not wait for their flush may be gone. The next admission then sets the row to
 * the current time, and a signature created before it (with {@link #MARGIN_SECONDS}) is refused as a possible replay.
 * Looked for at the first request-signed admission (an application's start-up migrates after its beans are built);
 * when it is not there, or not unlogged, every nonce's commit waits for its flush.
 */
final class NonceSince {
    /**
     * How much later than the table's time a signature must have been created to be known new: the signer's clock may
     * be ahead of the application's by the accepted skew, and the application's of the database's by as much again.
     */
    private static final long MARGIN_SECONDS = 2 * io.fenceguard.admission.RequestSignatures.CLOCK_SKEW.toSeconds();

    /** One row, {@code u}, when the table its parameter names is there and unlogged. */
    static final String UNLOGGED = "SELECT relpersistence::text FROM pg_class WHERE oid = to_regclass(?)";

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(NonceSince.class);

    private final String candidate;
    private final String storeTable;
    /** {@link #candidate} once found there, {@code null} when not; read after {@link #looked}. */
    private volatile String table;
    private volatile boolean looked;

    /** The table named {@code candidate} (none: {@code null}), guarding the nonces of the store on {@code storeTable}. */
    NonceSince(String candidate, String storeTable) {
        this.candidate = candidate;
        this.storeTable = storeTable;
    }

    /** The {@link #candidate} when it is there and unlogged, else {@code null}: looked for once. */
    String table(Connection connection) throws SQLException {
        if (!looked) {
            synchronized (this) {
                if (!looked) {
                    boolean there = candidate != null && isUnlogged(connection, candidate);
                    table = there ? candidate : null;
                    looked = true;
                    if (!there) {
                        log.info("high-water store on {}: no unlogged table {} (fenceguard's migration V7), so every "
                                + "request-signed admission waits for its own WAL flush", storeTable, candidate);
                    }
                }
            }
        }
        return table;
    }

    /** Whether {@code table} exists and is unlogged. */
    private static boolean isUnlogged(Connection connection, String table) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(UNLOGGED)) {
            query.setString(1, table);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next() && "u".equals(rows.getString(1));
            }
        }
    }

    /**
     * The start of a statement that reads the row of {@code table} ({@code known}) and, when it is gone, sets it again
     * ({@code noted}: this statement's nonces are then not fresh); ends with a comma.
     */
    static String checked(String table) {
        return "WITH known AS (SELECT since FROM " + table + " WHERE id = 1), "
                + "noted AS (INSERT INTO " + table + " (id, since) SELECT 1, CURRENT_TIMESTAMP "
                + "WHERE NOT EXISTS (SELECT 1 FROM known) ON CONFLICT (id) DO NOTHING RETURNING since), ";
    }

    /**
     * A signature's creation time ({@code created}: SQL, epoch seconds) later than {@code known}'s, with the margin; in
     * a statement begun by {@link #checked}.
     */
    static String createdAfter(String created) {
        return created + " > (SELECT extract(epoch FROM since) FROM known) + " + MARGIN_SECONDS;
    }
}
