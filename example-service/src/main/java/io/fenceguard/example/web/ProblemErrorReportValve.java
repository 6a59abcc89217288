package io.fenceguard.example.web;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;

/**
 * Tomcat's error report as problem details: what Tomcat refuses before any servlet runs (an encoded
 * {@code /} or NUL in the path, a request line or header over the connector's limit) answers
 * {@code application/problem+json} with the example's vocabulary instead of Tomcat's HTML page.
 * Installed by {@link ContainerProblems}.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0) {
            return;
        }
        AtomicBoolean ioAllowed = new AtomicBoolean(true);
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
        if (!ioAllowed.get()) {
            return;
        }
        String detail = status >= 500 ? "the request failed; nothing was applied"
                : "the server refused the request before it reached the application"
                        + (response.getMessage() == null || response.getMessage().isBlank() ? ""
                                : ": " + response.getMessage());
        try {
            response.setContentType("application/problem+json");
            response.setCharacterEncoding("UTF-8");
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write(ProblemVocabulary.json(status, detail, null));
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // the connection is gone or the response committed: nothing more can be said
        }
    }
}
