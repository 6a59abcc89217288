package io.fenceguard.example.web;

import io.fenceguard.example.ExampleApplication;
import io.fenceguard.test.support.RedisEndpoint;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example started in this JVM with its demo profile on the test servers: a PostgreSQL schema of its own
 * (dropped on close) and Redis keys under a prefix of its own, so that the web tests do not see each other's
 * accounts, marks or nonces.
 */
final class ExampleOnTestServers implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final ScratchSpace database;
    private final ConfigurableApplicationContext app;
    private final int port;

    private ExampleOnTestServers(ScratchSpace database, ConfigurableApplicationContext app) {
        this.database = database;
        this.app = app;
        this.port = ((WebServerApplicationContext) app).getWebServer().getPort();
    }

    /**
     * @param name     the schema's and the Redis key prefix's beginning
     * @param settings more command-line settings of the test, after the common ones
     */
    static ExampleOnTestServers start(String name, String... settings) {
        ScratchSpace database = ScratchSpace.create(TestServers.postgres(), name);
        try {
            RedisEndpoint redis = TestServers.redis();
            String prefix = name + "-" + UUID.randomUUID().toString().substring(0, 8) + ":";
            List<String> args = new ArrayList<>(List.of(
                    // A fixed port: the example calls its own /audit at ${server.port}.
                    "--server.port=" + RedisProcess.freePort(),
                    "--spring.profiles.active=demo", "--example.embedded.enabled=false",
                    "--spring.datasource.url=" + database.jdbcUrl(),
                    "--spring.datasource.username=" + database.server().user(),
                    "--spring.datasource.password=" + database.server().password(),
                    "--spring.datasource.hikari.schema=" + database.schema(),
                    "--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
                    "--fenceguard.redis.key-prefix=" + prefix, "--fenceguard.http.store.key-prefix=" + prefix,
                    "--spring.main.banner-mode=off"));
            args.addAll(List.of(settings));
            return new ExampleOnTestServers(database,
                    new SpringApplicationBuilder(ExampleApplication.class).run(args.toArray(String[]::new)));
        } catch (RuntimeException | Error e) {
            database.close();
            throw e;
        }
    }

    int port() {
        return port;
    }

    ScratchSpace database() {
        return database;
    }

    /** One request to the example; {@code json} null: no body. */
    HttpResponse<String> send(String method, String path, String json, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        if (headers.length > 0) {
            request.headers(headers);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() {
        try {
            app.close();
        } finally {
            database.close();
        }
    }
}
