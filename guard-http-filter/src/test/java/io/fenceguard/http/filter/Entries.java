package io.fenceguard.http.filter;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** The entries of the idempotency tests' handlers: their answer, and the rows they wrote to table entries (id, n). */
final class Entries {

    private Entries() {
    }

    /** Answers 201 with entry {@code n} as JSON. */
    static void answer(HttpServletResponse response, int n) throws IOException {
        response.setStatus(201);
        response.setContentType("application/json");
        response.getOutputStream().write(("{\"entry\":" + n + "}").getBytes(StandardCharsets.UTF_8));
    }

    /** How many rows of table entries the account has. */
    static int rows(DataSource ds, String id) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement count = c.prepareStatement("SELECT COUNT(*) FROM entries WHERE id = ?")) {
            count.setString(1, id);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }
}
