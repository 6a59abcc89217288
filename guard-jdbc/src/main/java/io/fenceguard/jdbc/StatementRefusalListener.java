package io.fenceguard.jdbc;

import java.sql.SQLException;

/**
 * Told of each statement the guard refuses, for metrics and logs ({@link FencingConfig.Builder#onRefusal}):
 * a {@link FencingRefusedException} (nothing was sent) or a {@link StaleTokenException} (the database
 * refused the older token). Called once per refusal, on the caller's thread, just before the refusal is
 * thrown to the caller unchanged; what the listener throws is logged and ignored.
 */
@FunctionalInterface
public interface StatementRefusalListener {

    void refused(SQLException refusal);
}
