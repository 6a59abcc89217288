package io.fenceguard.http;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import java.util.Optional;

/**
 * The inbound token the current request was admitted with, bound to the request's thread by
 * {@link FencingFilter}. It is also bound into core's {@link LeaseContext} as a
 * {@link Lease#presented presented} lease, so SQL fencing and outgoing calls use it as the server's
 * own lease: the chain lock → header → filter → SQL fence holds without code in the handler.
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
        Lease presented = Lease.presented(io.fenceguard.core.Fence.of(token.resource(), token.token()), "http");
        return new Scope(previous, presented, LeaseContext.bind(presented));
    }

    /** Restores what was bound before; closing twice does nothing. */
    public static final class Scope implements AutoCloseable {
        private final InboundToken previous;
        private final Lease presented;
        private final LeaseContext.Scope coreScope;
        private boolean closed;

        private Scope(InboundToken previous, Lease presented, LeaseContext.Scope coreScope) {
            this.previous = previous;
            this.presented = presented;
            this.coreScope = coreScope;
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            coreScope.close();
            presented.close();
            if (previous == null) {
                BOUND.remove();
            } else {
                BOUND.set(previous);
            }
        }
    }
}
