package io.fenceguard.spring.observation;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseObserver;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.ResourceName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Locale;

/**
 * The manager's leases as Micrometer observations, so that one instrument gives both a timer (with
 * Boot's meter handler) and a span (with a tracing bridge):
 * <ul>
 *   <li>{@code fenceguard.lease.acquire}, around each new lease asked of the store, waiting included:
 *       {@code outcome=acquired|not_obtained|failed} (re-entries are not asked of the store);</li>
 *   <li>{@code fenceguard.lease.lost}, one per lost lease: {@code reason=expired|renewal_rejected|revoked};</li>
 *   <li>{@code fenceguard.lease.at-risk}, one per risk episode of a held lease (renewals failing and less than
 *       the at-risk share of it left), before it is lost or renewed again;</li>
 *   <li>{@code fenceguard.lease.release-requested}, one per release request told to a holder of this manager.</li>
 * </ul>
 * Tags are low-cardinality; the resource name is added as a high-cardinality value (spans, not meters) only
 * when asked ({@code includeResource}; with Boot, {@code fenceguard.observation.include-resource=true}).
 */
public class ObservedLeases implements LeaseObserver {

    public static final String ACQUIRE = "fenceguard.lease.acquire";
    public static final String LOST = "fenceguard.lease.lost";
    public static final String AT_RISK = "fenceguard.lease.at-risk";
    public static final String RELEASE_REQUESTED = "fenceguard.lease.release-requested";

    private final ObservationRegistry registry;
    private final boolean includeResource;
    private final ThreadLocal<Observation> acquiring = new ThreadLocal<>();

    public ObservedLeases(ObservationRegistry registry, boolean includeResource) {
        this.registry = registry;
        this.includeResource = includeResource;
    }

    @Override
    public void acquiring(ResourceName resource) {
        Observation observation = Observation.createNotStarted(ACQUIRE, registry)
                .contextualName("fenceguard acquire");
        if (includeResource) {
            observation.highCardinalityKeyValue("resource", resource.value());
        }
        acquiring.set(observation.start());
    }

    @Override
    public void acquired(Lease lease, Duration waited) {
        stop("acquired", null);
    }

    @Override
    public void notObtained(ResourceName resource, Duration waited) {
        stop("not_obtained", null);
    }

    @Override
    public void failed(ResourceName resource, Duration waited, Throwable error) {
        stop(error instanceof LeaseTimeoutException ? "not_obtained" : "failed", error);
    }

    private void stop(String outcome, Throwable error) {
        Observation observation = acquiring.get();
        if (observation == null) {
            return;
        }
        acquiring.remove();
        observation.lowCardinalityKeyValue("outcome", outcome);
        if (error != null) {
            observation.error(error);
        }
        observation.stop();
    }

    @Override
    public void lost(Lease lease, LeaseLossReason reason) {
        event(LOST, "fenceguard lease lost", lease)
                .lowCardinalityKeyValue("reason", reason.name().toLowerCase(Locale.ROOT))
                .start().stop();
    }

    @Override
    public void atRisk(Lease lease, Duration remaining) {
        event(AT_RISK, "fenceguard lease at risk", lease)
                .highCardinalityKeyValue("remaining.ms", Long.toString(remaining.toMillis()))
                .start().stop();
    }

    @Override
    public void releaseRequested(Lease lease, String reason) {
        event(RELEASE_REQUESTED, "fenceguard lease release requested", lease).start().stop();
    }

    /** An observation of a moment in a lease's life: started and stopped at once. */
    private Observation event(String name, String contextualName, Lease lease) {
        Observation observation = Observation.createNotStarted(name, registry).contextualName(contextualName);
        if (includeResource) {
            observation.highCardinalityKeyValue("resource", lease.resource().value());
        }
        return observation;
    }
}
