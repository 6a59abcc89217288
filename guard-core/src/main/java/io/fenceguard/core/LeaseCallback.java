package io.fenceguard.core;

/** Work done under a lease; its exception type passes through unchanged. */
@FunctionalInterface
public interface LeaseCallback<T, E extends Exception> {

    T call(Lease lease) throws E;
}
