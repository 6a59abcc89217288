package io.fenceguard.http.filter.internal;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A request whose body was read once (to check its digest) and is served again to the application. */
public final class CachedBodyRequest extends HttpServletRequestWrapper {

    private final byte[] body;

    private CachedBodyRequest(HttpServletRequest request, byte[] body) {
        super(request);
        this.body = body;
    }

    /** The request with its body read, or {@code null} when the body is longer than {@code maxBytes}. */
    public static CachedBodyRequest read(HttpServletRequest request, int maxBytes) throws IOException {
        long declared = request.getContentLengthLong();
        if (declared > maxBytes) {
            return null;
        }
        try (InputStream in = request.getInputStream()) {
            byte[] body;
            if (declared >= 0) {
                // The declared length read into one array of that size: no 8 KiB chunk per request. Whatever
                // follows it (the container normally ends the stream there) is read on and counted too.
                body = new byte[(int) declared];
                int read = in.readNBytes(body, 0, body.length);
                int next = read < body.length ? -1 : in.read();
                if (next < 0) {
                    return new CachedBodyRequest(request, read < body.length ? Arrays.copyOf(body, read) : body);
                }
                byte[] rest = in.readNBytes(maxBytes - body.length);
                byte[] all = new byte[body.length + 1 + rest.length];
                System.arraycopy(body, 0, all, 0, body.length);
                all[body.length] = (byte) next;
                System.arraycopy(rest, 0, all, body.length + 1, rest.length);
                body = all;
            } else {
                body = in.readNBytes(maxBytes + 1);
            }
            return body.length > maxBytes ? null : new CachedBodyRequest(request, body);
        }
    }

    public byte[] body() {
        return body;
    }

    @Override
    public ServletInputStream getInputStream() {
        ByteArrayInputStream in = new ByteArrayInputStream(body);
        return new ServletInputStream() {
            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
                throw new UnsupportedOperationException("the body was read already; read it blocking");
            }

            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                return in.read(b, off, len);
            }
        };
    }

    @Override
    public BufferedReader getReader() {
        String encoding = getCharacterEncoding();
        Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
        return new BufferedReader(new InputStreamReader(getInputStream(), charset));
    }

    @Override
    public int getContentLength() {
        return body.length;
    }

    @Override
    public long getContentLengthLong() {
        return body.length;
    }
}
