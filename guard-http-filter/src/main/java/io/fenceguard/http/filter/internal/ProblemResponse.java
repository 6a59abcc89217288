package io.fenceguard.http.filter.internal;

import io.fenceguard.admission.Problem;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** Writes a {@link Problem} as the whole response, replacing anything buffered. */
public final class ProblemResponse {

    private ProblemResponse() {
    }

    public static void send(HttpServletResponse response, Problem problem, String instance) throws IOException {
        byte[] body = problem.body(instance);
        response.resetBuffer();
        response.setStatus(problem.status());
        response.setContentType(Problem.CONTENT_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }
}
