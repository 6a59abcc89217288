package io.fenceguard.http.filter.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A raw HTTP/1.1 client over a socket, so that tests can send exactly the header bytes they mean
 * (duplicates, control characters, oversized values) without a client library cleaning them up.
 */
public final class Http {

    /** A response: status, content type and body. */
    public record Response(int status, String contentType, String body) {
    }

    private Http() {
    }

    /** A response as received: its status and its whole text (headers and body). */
    public record Raw(int status, String text) {

        /** The body, its chunks joined when it came chunked. */
        public String body() {
            int end = text.indexOf("\r\n\r\n");
            String rest = text.substring(end + 4);
            if (!text.substring(0, end).toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked")) {
                return rest;
            }
            StringBuilder body = new StringBuilder();
            for (int at = 0; ; ) {
                int line = rest.indexOf("\r\n", at);
                int size = Integer.parseInt(rest.substring(at, line).trim(), 16);
                if (size == 0) {
                    return body.toString();
                }
                body.append(rest, line + 2, line + 2 + size);
                at = line + 2 + size + 2;
            }
        }
    }

    /**
     * {@code method path} with a JSON {@code body} and {@code headers}, as a balancer at {@code authority} forwards
     * it: with that Host header (which java.net.http does not let a caller set), so that the instance on
     * {@code port} sees the target URI the caller signed.
     */
    public static Raw forwarded(int port, String authority, String method, String path,
            java.util.Map<String, String> headers, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + authority
                + "\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length
                + "\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("\r\n");
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            String text = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Raw(Integer.parseInt(text.substring(9, 12)), text);
        }
    }

    /** {@code method path} with one header line per element of {@code fencingHeaders}. */
    public static Response send(int port, String method, String path, List<String> fencingHeaders) {
        StringBuilder request = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1:").append(port).append("\r\n")
                .append("Connection: close\r\nContent-Length: 0\r\n");
        for (String value : fencingHeaders) {
            request.append("Fencing-Token: ").append(value).append("\r\n");
        }
        request.append("\r\n");
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return parse(socket.getInputStream().readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Response put(int port, String path, String... fencingHeaders) {
        return send(port, "PUT", path, List.of(fencingHeaders));
    }

    public static Response get(int port, String path, String... fencingHeaders) {
        return send(port, "GET", path, List.of(fencingHeaders));
    }

    private static Response parse(byte[] raw) {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IllegalStateException("no complete response: " + text);
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        String contentType = null;
        boolean chunked = false;
        for (int i = 1; i < lines.length; i++) {
            String lower = lines[i].toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-type:")) {
                contentType = lines[i].substring(13).trim();
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        String body = text.substring(end + 4);
        return new Response(status, contentType, chunked ? dechunk(body) : body);
    }

    private static String dechunk(String body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        while (true) {
            int lineEnd = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, lineEnd).trim(), 16);
            if (size == 0) {
                return out.toString(StandardCharsets.ISO_8859_1);
            }
            out.write(body.substring(lineEnd + 2, lineEnd + 2 + size).getBytes(StandardCharsets.ISO_8859_1), 0, size);
            at = lineEnd + 2 + size + 2;
        }
    }

}
