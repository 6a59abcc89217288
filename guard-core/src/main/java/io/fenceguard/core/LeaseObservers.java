package io.fenceguard.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The {@link LeaseObserver}s of a {@link LeaseManager}, told in turn on the calling thread: one that throws is
 * logged and ignored, and stops no other observer and no caller.
 */
final class LeaseObservers {

    /** The manager's logger: what is logged about a lease is found in one place. */
    private static final System.Logger log = System.getLogger(LeaseManager.class.getName());

    private final List<LeaseObserver> observers = new CopyOnWriteArrayList<>();

    void add(LeaseObserver observer) {
        observers.add(Objects.requireNonNull(observer, "observer"));
    }

    boolean isEmpty() {
        return observers.isEmpty();
    }

    /** Runs {@code obtain} and tells the observers how it went. */
    Lease observed(ResourceName resource, Supplier<Lease> obtain) {
        tellAll("acquiring", o -> o.acquiring(resource));
        long start = System.nanoTime();
        Lease lease;
        try {
            lease = obtain.get();
        } catch (LeaseTimeoutException e) {
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            tellAll("notObtained", o -> o.notObtained(resource, waited));
            throw e;
        } catch (RuntimeException | Error e) {
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            tellAll("failed", o -> o.failed(resource, waited, e));
            throw e;
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        tellAll("acquired", o -> o.acquired(lease, waited));
        return lease;
    }

    void renewed(Lease lease, Duration roundTrip) {
        tellAll("renewed", o -> o.renewed(lease, roundTrip));
    }

    void renewalFailed(Lease lease, Throwable error) {
        tellAll("renewalFailed", o -> o.renewalFailed(lease, error));
    }

    void atRisk(Lease lease, Duration remaining) {
        tellAll("atRisk", o -> o.atRisk(lease, remaining));
    }

    void releaseRequested(Lease lease, String reason) {
        tellAll("releaseRequested", o -> o.releaseRequested(lease, reason));
    }

    void lost(Lease lease, LeaseLossReason reason) {
        tellAll("lost", o -> o.lost(lease, reason));
    }

    private void tellAll(String event, Consumer<LeaseObserver> call) {
        for (LeaseObserver observer : observers) {
            try {
                call.accept(observer);
            } catch (RuntimeException e) {
                log.log(Level.WARNING, "lease observer " + observer + " failed on " + event + "; ignored", e);
            }
        }
    }
}
