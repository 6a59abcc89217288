package io.fenceguard.test.support.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A loopback TCP proxy that adds a round trip to every request without serialising them: each chunk is
 * forwarded a set time after it arrived, whatever else is in flight, as on a long link (not a slow one).
 * The two directions are delayed separately (a request that reaches the server at once and an answer
 * that comes late is the case a lock's grant fears most), and every open connection can be cut at once,
 * as by a network blip. Clients connect to {@link #uri()} instead of the server.
 *
 * <pre>{@code
 * try (DelayProxy link = DelayProxy.start(redis.port())) {
 *     link.addRoundTrip(Duration.ofMillis(900));
 * }
 * }</pre>
 */
public final class DelayProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int upstreamPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile long toServerNanos;
    private volatile long toClientNanos;
    private volatile boolean closed;

    private DelayProxy(ServerSocket server, int upstreamPort) {
        this.server = server;
        this.upstreamPort = upstreamPort;
    }

    public static DelayProxy start(int upstreamPort) {
        try {
            ServerSocket server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            DelayProxy proxy = new DelayProxy(server, upstreamPort);
            daemon("delay-proxy-accept-" + server.getLocalPort(), proxy::acceptLoop).start();
            return proxy;
        } catch (IOException e) {
            throw new IllegalStateException("cannot open the proxy port", e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    public String uri() {
        return "redis://127.0.0.1:" + port();
    }

    /** Adds {@code roundTrip} to every request and its answer (half each way); zero heals. */
    public void addRoundTrip(Duration roundTrip) {
        delay(roundTrip.dividedBy(2), roundTrip.dividedBy(2));
    }

    /** Delays what the client sends by {@code toServer} and what the server answers by {@code toClient}. */
    public void delay(Duration toServer, Duration toClient) {
        toServerNanos = toServer.toNanos();
        toClientNanos = toClient.toNanos();
    }

    /** Closes every open connection (what is still queued is lost); new connections are accepted. */
    public int dropConnections() {
        int dropped = 0;
        for (Socket socket : open) {
            close(socket);
            dropped++;
        }
        return dropped;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 2_000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                pipe(client, upstream, true);
                pipe(upstream, client, false);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private record Chunk(long dueNanos, byte[] bytes) {
    }

    /** A reader that stamps each chunk and a writer that sends it when due. */
    private void pipe(Socket from, Socket to, boolean toServer) {
        BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        daemon("delay-proxy-read", () -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    queue.add(new Chunk(System.nanoTime() + (toServer ? toServerNanos : toClientNanos),
                            Arrays.copyOf(buffer, n)));
                }
            } catch (IOException ignored) {
                // closed
            }
            queue.add(new Chunk(0, null));
        }).start();
        daemon("delay-proxy-write", () -> {
            try (OutputStream out = to.getOutputStream()) {
                while (true) {
                    Chunk chunk = queue.take();
                    if (chunk.bytes() == null) {
                        break;
                    }
                    long wait;
                    while ((wait = chunk.dueNanos() - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    out.write(chunk.bytes());
                    out.flush();
                }
            } catch (IOException | InterruptedException ignored) {
                // closed
            } finally {
                close(from);
                close(to);
            }
        }).start();
    }

    private void close(Socket socket) {
        open.remove(socket);
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        open.forEach(this::close);
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }
}
