package io.fenceguard.example.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.test.support.ScratchSpace;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The example's audit calls after PostgreSQL emptied {@code fenceguard_http_nonce_since} (crash recovery does; a
 * {@code DELETE} here stands for it): a call signed before the moment the store found it empty is refused as a
 * possible replay and stays in the outbox; once that moment is more than the margin (10 s) past, the next deposit's
 * calls, signed anew, are admitted (request signatures, an Idempotency-Key, the admission in the handler's
 * transaction, as the example runs them).
 */
class NonceSinceResetTest {

    static ExampleOnTestServers example;
    static ScratchSpace database;

    @BeforeAll
    static void start() {
        // only the deposits send the outbox here
        example = ExampleOnTestServers.start("fgsince", "--example.audit.relay-interval=1h");
        database = example.database();
    }

    @AfterAll
    static void stop() {
        if (example != null) {
            example.close();
        }
    }

    @Test
    void auditCallsSignedAfterTheResetAndTheMarginAreAdmitted() throws Exception {
        assertThat(send("PUT", "/accounts/s1", "{\"balance\":10}").statusCode()).isBetween(200, 201);
        assertThat(deposit()).contains("\"audit\":\"sent\"");

        update("DELETE FROM " + database.schema() + ".fenceguard_http_nonce_since");
        assertThat(deposit()).as("signed before the reset and the margin").contains("\"audit\":\"pending\"");
        assertThat(count("audit_outbox")).isOne();
        assertThat(count("fenceguard_http_nonce_since")).as("the moment the store found it empty").isOne();

        // As if that moment were 11 s ago: calls signed from now on are past it and the margin.
        update("UPDATE " + database.schema() + ".fenceguard_http_nonce_since SET since = since - interval '11 seconds'");
        assertThat(deposit()).as("the pending call and this one, signed anew").contains("\"audit\":\"sent\"");
        assertThat(count("audit_outbox")).isZero();
    }

    private static String deposit() throws Exception {
        HttpResponse<String> deposit = send("POST", "/accounts/s1/deposits", "{\"amount\":5}");
        assertThat(deposit.statusCode()).as(deposit.body()).isEqualTo(200);
        return deposit.body();
    }

    private static HttpResponse<String> send(String method, String path, String json) throws Exception {
        return example.send(method, path, json);
    }

    private static Connection connect() throws Exception {
        return DriverManager.getConnection(database.jdbcUrl(), database.server().user(), database.server().password());
    }

    private static void update(String sql) throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.executeUpdate(sql);
        }
    }

    private static long count(String table) throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT COUNT(*) FROM " + database.schema() + "." + table)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
