package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import java.util.Optional;

/**
 * The fence the current request presented and a fencing filter (the servlet {@code FencingFilter}) admitted,
 * bound to the request's thread. It is also bound into core's {@link LeaseContext} as a {@link Lease#presented presented}
 * lease, so SQL fencing and outgoing calls use it as the server's own lease: the chain
 * lock → header → filter → SQL fence holds without code in the handler.
 */
public final class InboundContext {

    private static final ThreadLocal<Fence> BOUND = new ThreadLocal<>();

    private InboundContext() {
    }

    /** The fence the current request was admitted with. */
    public static Optional<Fence> current() {
        return Optional.ofNullable(BOUND.get());
    }

    /**
     * Binds {@code fence}, presented by {@code remote} (an address, for logs), until the scope is
     * closed; closing restores what was bound before.
     */
    public static Scope bind(Fence fence, String remote) {
        Lease presented = Lease.presented(fence, "http:" + remote);
        Fence previous = BOUND.get();
        BOUND.set(fence);
        return new Scope(previous, presented, LeaseContext.bind(presented));
    }

    /** Restores what was bound before; closing twice does nothing. */
    public static final class Scope implements AutoCloseable {
        private final Fence previous;
        private final Lease presented;
        private final LeaseContext.Scope coreScope;
        private boolean closed;

        private Scope(Fence previous, Lease presented, LeaseContext.Scope coreScope) {
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
