package io.fenceguard.spring.jdbc;

/** The fenced tables do not fit the database's catalog: start-up stops with why. */
public class FencedTablesConfigurationException extends IllegalStateException {

    public FencedTablesConfigurationException(java.sql.SQLException cause) {
        super("fenceguard.jdbc: " + cause.getMessage(), cause);
    }
}
