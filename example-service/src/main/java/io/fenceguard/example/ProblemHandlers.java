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
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every failure as an RFC 9457 problem ({@code application/problem+json}), with the resource and
 * tokens it concerns and no stack trace. Types are {@code urn:fenceguard:<kind>}.
 */
@RestControllerAdvice
public class ProblemHandlers extends ResponseEntityExceptionHandler {

    /** About a PostgreSQL restart or crash recovery: long enough not to hammer it, short enough for a client. */
    static final int RETRY_AFTER_SECONDS = 2;

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
        if (isTransient(e)) {
            return databaseUnavailable().getBody();
        }
        return problem(HttpStatus.SERVICE_UNAVAILABLE, "database-failure", "Database failure",
                "the database refused or failed the operation; nothing was applied");
    }

    /**
     * The database cannot be reached (restarting, recovering, the pool without a connection): the deposit was not
     * begun or was rolled back, and the same request can be sent again shortly. A transaction that cannot begin
     * is not a DataAccessException, so without this it answered 500.
     */
    @ExceptionHandler(CannotCreateTransactionException.class)
    public ResponseEntity<ProblemDetail> transactionNotBegun(CannotCreateTransactionException e) {
        return databaseUnavailable();
    }

    /**
     * A rollback that failed on the connection that had just failed the statement: the statement's own failure is
     * the answer (nothing was applied). A failed commit stays a server error: whether it was applied is not known.
     */
    @ExceptionHandler(TransactionSystemException.class)
    public ResponseEntity<ProblemDetail> rollbackFailed(TransactionSystemException e) {
        Throwable cause = e.getApplicationException();
        if (cause instanceof DataAccessException dataAccess && isTransient(dataAccess)) {
            return databaseUnreachable(dataAccess);
        }
        ProblemDetail p = problem(HttpStatus.INTERNAL_SERVER_ERROR, "database-failure", "Database failure",
                "the database failed to end the transaction; whether it was applied is not known");
        return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).body(p);
    }

    @ExceptionHandler({DataAccessResourceFailureException.class, TransientDataAccessException.class})
    public ResponseEntity<ProblemDetail> databaseUnreachable(DataAccessException e) {
        ResponseEntity<ProblemDetail> fenced = fencingRefusal(e);
        return fenced != null ? fenced : databaseUnavailable();
    }

    /** A refusal of the fence wrapped in a transient failure keeps its own answer. */
    private ResponseEntity<ProblemDetail> fencingRefusal(DataAccessException e) {
        if (find(e, StaleTokenException.class) == null && find(e, FencingRefusedException.class) == null) {
            return null;
        }
        ProblemDetail p = dataAccess(e);
        return ResponseEntity.status(p.getStatus()).body(p);
    }

    private static boolean isTransient(Throwable e) {
        return find(e, DataAccessResourceFailureException.class) != null || find(e, TransientDataAccessException.class) != null
                || find(e, java.sql.SQLTransientException.class) != null;
    }

    private static ResponseEntity<ProblemDetail> databaseUnavailable() {
        ProblemDetail p = problem(HttpStatus.SERVICE_UNAVAILABLE, "database-unavailable", "Database unavailable",
                "the database cannot be reached right now; nothing was applied, send the request again");
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, String.valueOf(RETRY_AFTER_SECONDS)).body(p);
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
