package io.fenceguard.example.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.example.ExampleApplication;
import io.fenceguard.test.support.RedisEndpoint;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example's audit calls after PostgreSQL emptied {@code fenceguard_http_nonce_since} (crash recovery does; a
 * {@code DELETE} here stands for it): a call signed before the moment the store found it empty is refused as a
 * possible replay and stays in the outbox; once that moment is more than the margin (10 s) past, the next deposit's
 * calls, signed anew, are admitted (request signatures, an Idempotency-Key, the admission in the handler's
 * transaction, as the example runs them).
 */
class NonceSinceResetTest {

    static ScratchSpace database;
    static ConfigurableApplicationContext app;
    static int port;
    static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        database = ScratchSpace.create(TestServers.postgres(), "fgsince");
        RedisEndpoint redis = TestServers.redis();
        String prefix = "fgsince-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        app = new SpringApplicationBuilder(ExampleApplication.class).run("--server.port=" + RedisProcess.freePort(),
                "--spring.profiles.active=demo", "--example.embedded.enabled=false",
                "--spring.datasource.url=" + database.jdbcUrl(),
                "--spring.datasource.username=" + database.server().user(),
                "--spring.datasource.password=" + database.server().password(),
                "--spring.datasource.hikari.schema=" + database.schema(),
                "--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
                "--fenceguard.redis.key-prefix=" + prefix, "--fenceguard.http.store.key-prefix=" + prefix,
                // only the deposits send the outbox here
                "--example.audit.relay-interval=1h", "--spring.main.banner-mode=off");
        port = ((WebServerApplicationContext) app).getWebServer().getPort();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (database != null) {
            database.close();
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
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.ofString(json)).header("Content-Type", "application/json")
                .build(), HttpResponse.BodyHandlers.ofString());
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
