package io.fenceguard.example;

import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.example.ledger.AccountNotFoundException;
import io.fenceguard.example.ledger.AuditRejectedException;
import io.fenceguard.example.ops.RejectionLog;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.StaleTokenException;
import java.net.URI;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every failure as an RFC 9457 problem ({@code application/problem+json}), with the resource and
 * tokens it concerns and no stack trace. Types are {@code urn:fenceguard:<kind>}.
 */
@RestControllerAdvice
public class ProblemHandlers extends ResponseEntityExceptionHandler {

    private final RejectionLog rejections;

    public ProblemHandlers(RejectionLog rejections) {
        this.rejections = rejections;
    }

    @ExceptionHandler(IllegalArgumentException.class)
    public ProblemDetail badInput(IllegalArgumentException e) {
        return problem(HttpStatus.BAD_REQUEST, "bad-request", "Bad request", e.getMessage());
    }

    @ExceptionHandler(AccountNotFoundException.class)
    public ProblemDetail notFound(AccountNotFoundException e) {
        ProblemDetail p = problem(HttpStatus.NOT_FOUND, "account-not-found", "No such account", e.getMessage());
        p.setProperty("account", e.accountId());
        return p;
    }

    @ExceptionHandler(ArithmeticException.class)
    public ProblemDetail overflow(ArithmeticException e) {
        return problem(HttpStatus.UNPROCESSABLE_CONTENT, "balance-overflow", "Balance would overflow",
                "the new balance would not fit in a signed 64-bit number; nothing was written");
    }

    @ExceptionHandler(AuditRejectedException.class)
    public ProblemDetail auditRejected(AuditRejectedException e) {
        if (e.status() == HttpStatus.CONFLICT.value()) {
            return problem(HttpStatus.CONFLICT, "stale-token", "Fenced out",
                    "the audit service refused this holder's token: a newer holder has written; the deposit was rolled back");
        }
        return problem(HttpStatus.BAD_GATEWAY, "audit-failed", "Audit failed",
                e.getMessage() + "; the deposit was rolled back");
    }

    @ExceptionHandler(FenceguardException.class)
    public ProblemDetail guardFailure(FenceguardException e) {
        ProblemDetail p;
        if (e instanceof InvalidResourceNameException) {
            p = problem(HttpStatus.BAD_REQUEST, "invalid-resource", "Invalid resource name", e.getMessage());
        } else if (e instanceof LeaseTimeoutException) {
            p = problem(HttpStatus.LOCKED, "lease-timeout", "Lease not obtained in time", e.getMessage());
        } else if (e instanceof LeaseLostException) {
            p = problem(HttpStatus.CONFLICT, "lease-lost", "Lease lost", e.getMessage());
        } else if (e instanceof LeaseUnavailableException) {
            p = problem(HttpStatus.SERVICE_UNAVAILABLE, "lock-service-unavailable", "Lock service unavailable", e.getMessage());
        } else {
            p = problem(HttpStatus.INTERNAL_SERVER_ERROR, "guard-failure", "Guard failure", e.getMessage());
        }
        if (e.resource() != null) {
            p.setProperty("resource", e.resource().value());
        }
        if (e.token() != null) {
            p.setProperty("token", e.token().value());
        }
        return p;
    }

    @ExceptionHandler(DataAccessException.class)
    public ProblemDetail dataAccess(DataAccessException e) {
        StaleTokenException stale = find(e, StaleTokenException.class);
        if (stale != null) {
            String resource = stale.resource() == null ? null : stale.resource().value();
            Long token = stale.token() == null ? null : stale.token().value();
            rejections.record("jdbc", resource, token, true, "stale token on table " + stale.table());
            ProblemDetail p = problem(HttpStatus.CONFLICT, "stale-token", "Fenced out",
                    "a newer holder has written to " + stale.table() + "; this holder's write was refused and rolled back");
            p.setProperty("resource", resource);
            p.setProperty("token", token);
            p.setProperty("table", stale.table());
            return p;
        }
        FencingRefusedException refused = find(e, FencingRefusedException.class);
        if (refused != null && refused.reason() == FencingRefusedException.Reason.LEASE_LOST) {
            LeaseLostException lost = find(e, LeaseLostException.class);
            rejections.record("jdbc", lost == null ? null : lost.resource().value(),
                    lost == null ? null : lost.token().value(), false, "lease lost before the write");
            return guardFailure(lost != null ? lost : new FenceguardException(refused.getMessage(), null, null));
        }
        return problem(HttpStatus.SERVICE_UNAVAILABLE, "database-failure", "Database failure",
                "the database refused or failed the operation; nothing was applied");
    }

    /** Spring MVC's own 4xx problems (unreadable JSON, wrong method, …) get the example's types instead of about:blank. */
    @Override
    protected org.springframework.http.ResponseEntity<Object> createResponseEntity(Object body,
            org.springframework.http.HttpHeaders headers, org.springframework.http.HttpStatusCode statusCode,
            org.springframework.web.context.request.WebRequest request) {
        if (body instanceof ProblemDetail p && (p.getType() == null || "about:blank".equals(p.getType().toString()))) {
            p.setType(URI.create(io.fenceguard.example.web.ProblemVocabulary.type(statusCode.value())));
            p.setTitle(io.fenceguard.example.web.ProblemVocabulary.title(statusCode.value()));
        }
        return super.createResponseEntity(body, headers, statusCode, request);
    }

    private static <T extends Throwable> T find(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    private static ProblemDetail problem(HttpStatus status, String type, String title, String detail) {
        ProblemDetail p = ProblemDetail.forStatusAndDetail(status, detail);
        p.setType(URI.create("urn:fenceguard:" + type));
        p.setTitle(title);
        return p;
    }
}
