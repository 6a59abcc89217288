package io.fenceguard.proof;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a loopback port in front of one Redis server, through which clients reach it, so the
 * nemesis can add latency to every chunk forwarded and drop every open connection at once. Loopback
 * only; at most {@value #MAX_CONNECTIONS} connections (clients have small pools).
 */
public final class ChaosProxy implements AutoCloseable {

    private static final int MAX_CONNECTIONS = 256;

    private final ServerSocket server;
    private final int upstreamPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile long latencyMillis;
    private volatile boolean closed;

    private ChaosProxy(ServerSocket server, int upstreamPort) {
        this.server = server;
        this.upstreamPort = upstreamPort;
    }

    public static ChaosProxy start(int upstreamPort) {
        try {
            ServerSocket server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            ChaosProxy proxy = new ChaosProxy(server, upstreamPort);
            daemon("proxy-accept-" + server.getLocalPort(), proxy::acceptLoop).start();
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

    /** Delays every chunk in both directions by {@code millis}; 0 heals. */
    public void latency(long millis) {
        latencyMillis = millis;
    }

    /** Closes every open connection, as a network blip would; new connections are accepted. */
    public int dropConnections() {
        int dropped = 0;
        for (Socket socket : open) {
            closeQuietly(socket);
            dropped++;
        }
        open.clear();
        return dropped;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                if (open.size() >= 2 * MAX_CONNECTIONS) {
                    closeQuietly(client);
                    continue;
                }
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                daemon("proxy-up", () -> pump(client, upstream)).start();
                daemon("proxy-down", () -> pump(upstream, client)).start();
            } catch (IOException e) {
                // the upstream is down (a killed Redis) or the proxy closes: the client sees a reset
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                long delay = latencyMillis;
                if (delay > 0) {
                    Thread.sleep(delay);
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // either side went away; both are closed below
        } finally {
            open.remove(from);
            open.remove(to);
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
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
        dropConnections();
    }
}
