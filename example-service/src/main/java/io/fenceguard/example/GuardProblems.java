package io.fenceguard.example;

import io.fenceguard.core.GuardException;
import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** Guard failures as RFC 9457 problem details, with the resource and token they concern. */
@RestControllerAdvice
public class GuardProblems {

    @ExceptionHandler(GuardException.class)
    public ProblemDetail guardFailure(GuardException e) {
        HttpStatus status;
        if (e instanceof InvalidResourceNameException) {
            status = HttpStatus.BAD_REQUEST;
        } else if (e instanceof LeaseTimeoutException) {
            status = HttpStatus.LOCKED;
        } else if (e instanceof LeaseLostException) {
            status = HttpStatus.CONFLICT;
        } else if (e instanceof LeaseUnavailableException) {
            status = HttpStatus.SERVICE_UNAVAILABLE;
        } else {
            status = HttpStatus.INTERNAL_SERVER_ERROR;
        }
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, e.getMessage());
        problem.setTitle(e.getClass().getSimpleName());
        if (e.resource() != null) {
            problem.setProperty("resource", e.resource().value());
        }
        if (e.token() != null) {
            problem.setProperty("token", e.token().value());
        }
        return problem;
    }
}
