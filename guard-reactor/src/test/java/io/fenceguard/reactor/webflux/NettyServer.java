package io.fenceguard.reactor.webflux;

import java.time.Duration;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** A real Reactor Netty server on a free loopback port, serving a WebFlux {@link HttpHandler}. */
public final class NettyServer implements AutoCloseable {

    private final DisposableServer server;

    private NettyServer(DisposableServer server) {
        this.server = server;
    }

    public static NettyServer start(HttpHandler handler) {
        return new NettyServer(HttpServer.create().host("127.0.0.1").port(0)
                .handle(new ReactorHttpHandlerAdapter(handler)).bindNow(Duration.ofSeconds(10)));
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.port();
    }

    @Override
    public void close() {
        server.disposeNow(Duration.ofSeconds(5));
    }
}
