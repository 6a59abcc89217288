package io.fenceguard.http;

import io.fenceguard.http.internal.CoreLeaseBridge;
import java.util.Optional;

/**
 * The inbound token the current request was admitted with, bound to the request's thread by
 * {@link FencingFilter}. It is also bound into core's {@code LeaseContext} when core offers a lease
 * for inbound tokens (see {@link CoreLeaseBridge}), so SQL fencing and outgoing calls use it as the
 * server's own lease.
 */
public final class InboundContext {

    private static final ThreadLocal<InboundToken> BOUND = new ThreadLocal<>();

    private InboundContext() {
    }

    public static Optional<InboundToken> current() {
        return Optional.ofNullable(BOUND.get());
    }

    /** Binds {@code token} until the scope is closed; closing restores what was bound before. */
    public static Scope bind(InboundToken token) {
        InboundToken previous = BOUND.get();
        BOUND.set(token);
        AutoCloseable coreScope = CoreLeaseBridge.bind(token.resource(), token.token());
        return new Scope(previous, coreScope);
    }

    /** Restores what was bound before; closing twice does nothing. */
    public static final class Scope implements AutoCloseable {
        private final InboundToken previous;
        private final AutoCloseable coreScope;
        private boolean closed;

        private Scope(InboundToken previous, AutoCloseable coreScope) {
            this.previous = previous;
            this.coreScope = coreScope;
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                coreScope.close();
            } catch (Exception e) {
                throw new IllegalStateException("could not unbind the inbound lease", e);
            } finally {
                if (previous == null) {
                    BOUND.remove();
                } else {
                    BOUND.set(previous);
                }
            }
        }
    }
}
