package io.fenceguard.http.internal;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.ResourceName;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Binds an admitted inbound token into core's {@link LeaseContext} as a lease, through the factory
 * {@code public static Lease Lease.inbound(ResourceName, FencingToken)} that core is to provide (a
 * lease held elsewhere: valid, never renewed, closing it releases nothing). Until core has it, the
 * token is bound only in {@link io.fenceguard.http.InboundContext}.
 */
public final class CoreLeaseBridge {

    private static final MethodHandle INBOUND = find();

    private CoreLeaseBridge() {
    }

    private static MethodHandle find() {
        try {
            return MethodHandles.publicLookup().findStatic(Lease.class, "inbound",
                    MethodType.methodType(Lease.class, ResourceName.class, FencingToken.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }

    /** Whether core binds inbound tokens into its lease context. */
    public static boolean available() {
        return INBOUND != null;
    }

    public static AutoCloseable bind(ResourceName resource, FencingToken token) {
        if (INBOUND == null) {
            return () -> { };
        }
        try {
            return LeaseContext.bind((Lease) INBOUND.invoke(resource, token));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("Lease.inbound failed", e);
        }
    }
}
