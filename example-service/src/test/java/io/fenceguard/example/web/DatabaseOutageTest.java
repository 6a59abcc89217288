package io.fenceguard.example.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.example.ExampleApplication;
import io.fenceguard.test.support.RedisEndpoint;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import io.fenceguard.test.support.faults.DelayProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example on real PostgreSQL (through a loopback proxy that can be cut, as a database restart cuts it) and Redis:
 * a sent audit call leaves no outbox row behind, and a deposit while the database cannot be reached answers 503 with
 * a Retry-After, not 500.
 */
class DatabaseOutageTest {

    static ScratchSpace database;
    static DelayProxy link;
    static ConfigurableApplicationContext app;
    static int port;
    static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        database = ScratchSpace.create(TestServers.postgres(), "fgout");
        link = DelayProxy.start(URI.create(database.jdbcUrl().substring("jdbc:".length())).getPort());
        RedisEndpoint redis = TestServers.redis();
        String prefix = "fgout-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        app = new SpringApplicationBuilder(ExampleApplication.class).run("--server.port=" + RedisProcess.freePort(),
                "--spring.profiles.active=demo", "--example.embedded.enabled=false",
                "--spring.datasource.url=" + database.jdbcUrl().replaceFirst("//[^/]+/", "//127.0.0.1:" + link.port() + "/"),
                "--spring.datasource.username=" + database.server().user(),
                "--spring.datasource.password=" + database.server().password(),
                "--spring.datasource.hikari.schema=" + database.schema(),
                "--spring.datasource.hikari.connection-timeout=1500",
                "--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
                "--fenceguard.redis.key-prefix=" + prefix, "--fenceguard.http.store.key-prefix=" + prefix,
                "--spring.main.banner-mode=off");
        port = ((WebServerApplicationContext) app).getWebServer().getPort();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (link != null) {
            link.close();
        }
        if (database != null) {
            database.close();
        }
    }

    static HttpResponse<String> send(String method, String path, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.ofString(json)).header("Content-Type", "application/json")
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    static long outboxRows() throws Exception {
        try (Connection c = DriverManager.getConnection(database.jdbcUrl(), database.server().user(),
                database.server().password());
             ResultSet rows = c.createStatement().executeQuery("SELECT COUNT(*) FROM " + database.schema() + ".audit_outbox")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    @Test
    void sentAuditCallsLeaveNoRowAndAnUnreachableDatabaseAnswers503WithRetryAfter() throws Exception {
        assertThat(send("PUT", "/accounts/o1", "{\"balance\":10}").statusCode()).isBetween(200, 201);
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> deposit = send("POST", "/accounts/o1/deposits", "{\"amount\":5}");
            assertThat(deposit.statusCode()).as(deposit.body()).isEqualTo(200);
            assertThat(deposit.body()).contains("\"audit\":\"sent\"");
        }
        assertThat(outboxRows()).as("sent calls are deleted, not kept marked").isZero();

        link.close(); // every connection cut, and no new one accepted: a database restarting
        // first on a pooled connection that fails its statement (and its rollback), then without any connection
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> deposit = send("POST", "/accounts/o1/deposits", "{\"amount\":5}");
            assertThat(deposit.statusCode()).as(deposit.body()).isEqualTo(503);
            assertThat(deposit.headers().firstValue("Retry-After")).hasValue("2");
            assertThat(deposit.body()).contains("urn:fenceguard:database-unavailable");
        }
    }
}
