package io.fenceguard.test.support;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A tiny blocking RESP client for test plumbing (FLUSHALL, CLUSTER MEET, SENTINEL queries), so that
 * setting up servers does not depend on the client under test.
 */
public final class RespClient implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    public RespClient(String host, int port) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress(host, port), 2_000);
            socket.setSoTimeout(10_000);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to redis at " + host + ":" + port, e);
        }
    }

    /** Sends one command and returns its reply: String, Long, List or null; a server error throws. */
    public Object call(String... args) {
        try {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            buf.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                buf.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                buf.write(bytes);
                buf.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            out.write(buf.toByteArray());
            out.flush();
            return read();
        } catch (IOException e) {
            throw new UncheckedIOException("redis command " + args[0] + " failed", e);
        }
    }

    private Object read() throws IOException {
        int type = in.read();
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException("redis error: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(len + 2);
                return new String(data, 0, len, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type " + type);
        }
    }

    private String readLine() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\r') {
                in.read();
                break;
            }
            sb.append((char) c);
        }
        return sb.toString();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
