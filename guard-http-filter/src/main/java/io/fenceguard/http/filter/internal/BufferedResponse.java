package io.fenceguard.http.filter.internal;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;

/**
 * A response whose body is held back until {@link #release}: the client must not see a success before
 * the transaction it reports on has committed, and the body is recorded for idempotent retries.
 * Status and headers go to the wrapped response at once (it stays uncommitted meanwhile).
 */
public final class BufferedResponse extends HttpServletResponseWrapper {

    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private ServletOutputStream stream;
    private PrintWriter writer;

    public BufferedResponse(HttpServletResponse response) {
        super(response);
    }

    @Override
    public ServletOutputStream getOutputStream() {
        if (stream == null) {
            stream = new ServletOutputStream() {
                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener listener) {
                    throw new UnsupportedOperationException("a buffered fenced response is written synchronously");
                }

                @Override
                public void write(int b) {
                    body.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    body.write(b, off, len);
                }
            };
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() {
        if (writer == null) {
            String encoding = getCharacterEncoding();
            writer = new PrintWriter(new OutputStreamWriter(body, encoding == null ? java.nio.charset.StandardCharsets.ISO_8859_1
                    : Charset.forName(encoding)));
        }
        return writer;
    }

    @Override
    public void flushBuffer() {
        if (writer != null) {
            writer.flush();
        }
    }

    @Override
    public void resetBuffer() {
        flushBuffer();
        body.reset();
    }

    @Override
    public void reset() {
        super.reset();
        resetBuffer();
    }

    @Override
    public void setContentLength(int len) {
        // The length is set when the body is released.
    }

    @Override
    public void setContentLengthLong(long len) {
    }

    @Override
    public boolean isCommitted() {
        return false;
    }

    /** The body written so far. */
    public byte[] body() {
        flushBuffer();
        return body.toByteArray();
    }

    /** Sends the held body to the client. */
    public void release() throws IOException {
        byte[] bytes = body();
        HttpServletResponse response = (HttpServletResponse) getResponse();
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
        response.flushBuffer();
    }
}
