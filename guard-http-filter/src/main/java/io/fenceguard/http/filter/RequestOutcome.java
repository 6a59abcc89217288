package io.fenceguard.http.filter;

import io.fenceguard.core.Fence;
import jakarta.servlet.ServletException;
import java.io.IOException;

/**
 * What became of a request in {@link FencingFilter}: whether what it did is to be committed, the fence it was
 * admitted with ({@code null}: not admitted), and a failure after its admission ({@code null}: none), thrown by the
 * handler or not.
 */
record RequestOutcome(boolean commit, Fence admitted, Exception failure, boolean handlerFailed) {

    static RequestOutcome of(boolean commit, Fence admitted) {
        return new RequestOutcome(commit, admitted, null, false);
    }

    /** {@code failure} is an IOException, a ServletException or a RuntimeException. */
    static RequestOutcome failed(Fence admitted, Exception failure, boolean inHandler) {
        return new RequestOutcome(false, admitted, failure, inHandler);
    }

    void rethrowFailure() throws IOException, ServletException {
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof ServletException servlet) {
            throw servlet;
        }
        if (failure != null) {
            throw (RuntimeException) failure;
        }
    }
}
