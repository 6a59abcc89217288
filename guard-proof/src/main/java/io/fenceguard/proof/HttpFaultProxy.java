package io.fenceguard.proof;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The network between the HTTP clients and the resource server, on a loopback port: it forwards every
 * request, and on the nemesis's word holds requests past the clients' timeout before forwarding them
 * (they arrive late, after their sender gave up and released its lock), or forwards writes and answers
 * 502 in place of the server's answer (the write happened, the client cannot know and retries).
 */
final class HttpFaultProxy implements AutoCloseable {

    /** The answer a client gets when the proxy lost the server's answer to a write. */
    static final String LOST_ANSWER = "answer lost by the network";

    private static final Set<String> NOT_FORWARDED = Set.of("host", "connection", "content-length", "upgrade",
            "expect", "keep-alive", "transfer-encoding");

    private final HttpServer server;
    private final ExecutorService handlers;
    private final HttpClient upstream;
    private final String upstreamBase;
    private volatile long holdMillis;
    private volatile boolean loseWriteAnswers;

    private HttpFaultProxy(HttpServer server, ExecutorService handlers, int upstreamPort) {
        this.server = server;
        this.handlers = handlers;
        this.upstreamBase = "http://127.0.0.1:" + upstreamPort;
        this.upstream = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    }

    static HttpFaultProxy start(int upstreamPort) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        // a thread per request: a held request must not hold up the others
        ExecutorService handlers = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "http-fault-proxy");
            t.setDaemon(true);
            return t;
        });
        HttpFaultProxy proxy = new HttpFaultProxy(server, handlers, upstreamPort);
        server.createContext("/", proxy::forward);
        server.setExecutor(handlers);
        server.start();
        return proxy;
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Holds every request arriving from now on for {@code millis} before forwarding it; 0 heals. */
    void hold(long millis) {
        holdMillis = millis;
    }

    /** Forwards writes arriving from now on and answers them 502, as if the answer were lost. */
    void loseWriteAnswers(boolean lose) {
        loseWriteAnswers = lose;
    }

    void heal() {
        hold(0);
        loseWriteAnswers(false);
    }

    private void forward(HttpExchange exchange) throws IOException {
        long hold = holdMillis;
        boolean write = !exchange.getRequestMethod().equals("GET");
        boolean loseAnswer = write && loseWriteAnswers;
        try {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            if (hold > 0) {
                ProofServers.sleep(hold);
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(upstreamBase + exchange.getRequestURI()))
                    .timeout(Duration.ofSeconds(30))
                    .method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
                if (!NOT_FORWARDED.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                    header.getValue().forEach(value -> request.header(header.getKey(), value));
                }
            }
            int status;
            byte[] answer;
            try {
                HttpResponse<byte[]> response = upstream.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
                status = response.statusCode();
                answer = response.body();
            } catch (IOException e) {
                status = 502;
                answer = ("upstream unreachable: " + e).getBytes(StandardCharsets.UTF_8);
            }
            if (loseAnswer) {
                status = 502;
                answer = LOST_ANSWER.getBytes(StandardCharsets.UTF_8);
            }
            exchange.sendResponseHeaders(status, answer.length == 0 ? -1 : answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
    }
}
