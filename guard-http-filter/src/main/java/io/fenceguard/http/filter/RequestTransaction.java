package io.fenceguard.http.filter;

import io.fenceguard.admission.AdmissionTransaction;
import io.fenceguard.admission.Problem;
import io.fenceguard.core.Fence;
import io.fenceguard.http.filter.internal.BufferedResponse;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction step of {@link FencingFilter#inTransaction} (and of {@link FencingFilter#withIdempotency}, whose
 * recorded response is the one sent): a fenced request's admission, idempotency record and handler run as one
 * piece of work, in the {@link AdmissionTransaction} when there is one, with the response held back until the
 * work is done, so that a client never sees a success that did not commit. When an admitted request's work does
 * not commit, the request is answered 503 instead.
 */
final class RequestTransaction {

    private static final Logger log = LoggerFactory.getLogger(FencingFilter.class); // the filter's log, as before

    /** {@code null}: the work runs without a transaction (idempotency alone). */
    private final AdmissionTransaction transaction;
    private final Refusals refusals;

    RequestTransaction(AdmissionTransaction transaction, Refusals refusals) {
        this.transaction = transaction;
        this.refusals = refusals;
    }

    /** The work of one request, answering into the held-back response it is given. */
    @FunctionalInterface
    interface Work {
        RequestOutcome run(HttpServletResponse heldBack) throws IOException, ServletException;
    }

    void run(HttpServletRequest http, HttpServletResponse out, String path, Work work)
            throws IOException, ServletException {
        BufferedResponse buffered = new BufferedResponse(out);
        AtomicReference<RequestOutcome> ran = new AtomicReference<>();
        AdmissionTransaction.Work inTransaction = () -> {
            RequestOutcome outcome = work.run(buffered);
            ran.set(outcome);
            outcome.rethrowFailure(); // the transaction rolls back on it as on any failure
            return outcome.commit();
        };
        try {
            if (transaction == null) {
                inTransaction.run();
            } else {
                transaction.run(inTransaction);
            }
        } catch (IOException | ServletException | RuntimeException e) {
            RequestOutcome outcome = ran.get();
            if (outcome == null || outcome.admitted() == null || outcome.handlerFailed()) {
                throw e;
            }
            refuseUncommitted(http, out, path, outcome.admitted(), e);
            return;
        } catch (Exception e) {
            RequestOutcome outcome = ran.get();
            if (outcome == null || outcome.admitted() == null) {
                throw new ServletException(e);
            }
            refuseUncommitted(http, out, path, outcome.admitted(), e);
            return;
        }
        buffered.release();
    }

    private void refuseUncommitted(HttpServletRequest http, HttpServletResponse out, String path, Fence fence,
            Exception e) throws IOException {
        log.warn("the admission of {} and its handler's transaction did not commit; answering 503", fence, e);
        out.reset();
        refusals.refuse(http, out, path, Problem.notCommitted(fence));
    }
}
