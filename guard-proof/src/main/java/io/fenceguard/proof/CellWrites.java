package io.fenceguard.proof;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The statements of a read-modify-write on a cell, shared by the JDBC clients and the HTTP resource
 * server. The write is absolute (the value computed by the client), as in the case fencing exists for.
 */
final class CellWrites {

    private CellWrites() {
    }

    static long read(Connection c, String resource) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT value FROM proof_cell WHERE resource = ?")) {
            s.setString(1, resource);
            try (ResultSet rows = s.executeQuery()) {
                if (!rows.next()) {
                    throw new SQLException("no cell " + resource);
                }
                return rows.getLong(1);
            }
        }
    }

    /**
     * Writes {@code written}, appends to the ledger when {@code ledgerAmount} is given, and logs the
     * write with the admission sequence read back under the row lock the UPDATE took. Returns it.
     */
    static long write(Connection c, String resource, String opId, long token, long read, long written,
            Long ledgerAmount) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "UPDATE proof_cell SET value = ?, writes = writes + 1 WHERE resource = ?")) {
            s.setLong(1, written);
            s.setString(2, resource);
            if (s.executeUpdate() != 1) {
                throw new SQLException("cell " + resource + " not updated");
            }
        }
        long seq;
        try (PreparedStatement s = c.prepareStatement("SELECT writes FROM proof_cell WHERE resource = ?")) {
            s.setString(1, resource);
            try (ResultSet rows = s.executeQuery()) {
                rows.next();
                seq = rows.getLong(1);
            }
        }
        if (ledgerAmount != null) {
            try (PreparedStatement s = c.prepareStatement(
                    "INSERT INTO proof_ledger (resource, amount, op_id) VALUES (?, ?, ?)")) {
                s.setString(1, resource);
                s.setLong(2, ledgerAmount);
                s.setString(3, opId);
                s.executeUpdate();
            }
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO proof_write_log"
                + " (resource, seq, token, op_id, value_read, value_written) VALUES (?, ?, ?, ?, ?, ?)")) {
            s.setString(1, resource);
            s.setLong(2, seq);
            s.setLong(3, token);
            s.setString(4, opId);
            s.setLong(5, read);
            s.setLong(6, written);
            s.executeUpdate();
        }
        return seq;
    }
}
