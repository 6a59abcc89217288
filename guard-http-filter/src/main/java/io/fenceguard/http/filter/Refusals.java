package io.fenceguard.http.filter;

import io.fenceguard.admission.Problem;
import io.fenceguard.core.RefusalListener;
import io.fenceguard.http.filter.internal.ProblemResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** How {@link FencingFilter} and its steps refuse a request: problem details to the client, the listener told. */
final class Refusals {

    private final RefusalListener listener;

    Refusals(RefusalListener listener) {
        this.listener = listener;
    }

    void refuse(HttpServletRequest http, HttpServletResponse out, String path, Problem problem) throws IOException {
        ProblemResponse.send(out, problem, http.getRequestURI());
        listener.refused(problem.refusal(http.getMethod(), path));
    }
}
