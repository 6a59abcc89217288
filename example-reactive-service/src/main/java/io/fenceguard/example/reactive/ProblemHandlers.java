package io.fenceguard.example.reactive;

import io.fenceguard.reactor.r2dbc.R2dbcFencingRefusedException;
import io.fenceguard.reactor.r2dbc.R2dbcStaleTokenException;
import java.net.URI;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** Failures as RFC 9457 problems of type {@code urn:fenceguard:<kind>}, as the ledger answers them. */
@RestControllerAdvice
public class ProblemHandlers {

    /** PostgreSQL refused the write: a newer holder has written the row (Spring wraps the R2DBC error). */
    @ExceptionHandler({R2dbcStaleTokenException.class, DataAccessException.class, R2dbcFencingRefusedException.class})
    public ProblemDetail dataAccess(Exception e) {
        R2dbcStaleTokenException stale = find(e, R2dbcStaleTokenException.class);
        if (stale != null) {
            ProblemDetail p = problem(HttpStatus.CONFLICT, "stale-token", "Fenced out",
                    "a newer holder has written to " + stale.table() + "; this write was refused and rolled back");
            p.setProperty("resource", stale.resource().value());
            p.setProperty("token", String.valueOf(stale.token().value()));
            p.setProperty("table", stale.table());
            return p;
        }
        R2dbcFencingRefusedException refused = find(e, R2dbcFencingRefusedException.class);
        if (refused != null) {
            ProblemDetail p = problem(HttpStatus.INTERNAL_SERVER_ERROR, "fencing-refused", "Write not fenceable",
                    refused.getMessage());
            p.setProperty("reason", refused.reason().name());
            return p;
        }
        return problem(HttpStatus.SERVICE_UNAVAILABLE, "database-unavailable", "Database error",
                "the database could not complete the request");
    }

    @ExceptionHandler(IllegalArgumentException.class)
    public ProblemDetail badInput(IllegalArgumentException e) {
        return problem(HttpStatus.BAD_REQUEST, "bad-request", "Bad request", e.getMessage());
    }

    private static ProblemDetail problem(HttpStatus status, String kind, String title, String detail) {
        ProblemDetail p = ProblemDetail.forStatusAndDetail(status, detail);
        p.setType(URI.create("urn:fenceguard:" + kind));
        p.setTitle(title);
        return p;
    }

    private static <T extends Throwable> T find(Throwable error, Class<T> type) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
