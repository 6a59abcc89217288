package io.fenceguard.spring.observation;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseObserver;
import io.fenceguard.core.ResourceName;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The manager's lease metrics, a {@link MeterBinder} (Boot binds it to each meter registry; without Boot,
 * call {@link #bindTo}):
 * <ul>
 *   <li>{@code fenceguard.lease.acquire} timer, {@code outcome=acquired|not_obtained|failed}: time to obtain a
 *       new lease, waiting included (re-entries are not counted); {@code failed} when asking the store threw, as
 *       the observation of the same name tags it;</li>
 *   <li>{@code fenceguard.lease.lost} counter, {@code reason=expired|renewal_rejected|revoked};</li>
 *   <li>{@code fenceguard.lease.at-risk} counter: risk episodes of held leases (renewals failing and less than the
 *       at-risk share left), and {@code fenceguard.lease.release-requested} counter: release requests told to
 *       holders;</li>
 *   <li>{@code fenceguard.lease.renew} timer: round trip of each renewal the store confirmed, and
 *       {@code fenceguard.lease.renew.failed} counter: renewals not sent or not answered (tried again);
 *       both also when the other two come from observations;</li>
 *   <li>{@code fenceguard.lease.held} gauge: leases held now.</li>
 * </ul>
 * Resource names are never tags: there may be millions of them.
 */
public class FenceguardLeaseMetrics implements MeterBinder {

    private final LeaseManager leases;
    private final boolean heldOnly;

    public FenceguardLeaseMetrics(LeaseManager leases) {
        this(leases, false);
    }

    /**
     * @param heldOnly only the {@code fenceguard.lease.held} gauge and the renewal meters: the acquire timer and the
     *        lost, at-risk and release-requested counts come from the observations of the same names ({@code ObservedLeases}) when there is an
     *        {@code ObservationRegistry}
     */
    public FenceguardLeaseMetrics(LeaseManager leases, boolean heldOnly) {
        this.leases = leases;
        this.heldOnly = heldOnly;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("fenceguard.lease.held", leases, manager -> manager.heldLeases().size())
                .description("Leases held now").register(registry);
        leases.addObserver(heldOnly ? new Renewals(registry) : new Recorder(registry));
    }

    /**
     * Renewals as meters only, whether or not there are observations: they are background work, one per
     * held lease per renewal interval, and would drown the traces.
     */
    private static class Renewals implements LeaseObserver {

        private final Timer renewed;
        private final Counter renewalFailed;

        Renewals(MeterRegistry registry) {
            renewed = Timer.builder("fenceguard.lease.renew")
                    .description("Round trip of renewals the store confirmed").register(registry);
            renewalFailed = Counter.builder("fenceguard.lease.renew.failed")
                    .description("Renewals that could not be sent or got no answer (tried again within the lease)")
                    .register(registry);
        }

        @Override
        public void renewed(Lease lease, Duration roundTrip) {
            renewed.record(roundTrip);
        }

        @Override
        public void renewalFailed(Lease lease, Throwable error) {
            renewalFailed.increment();
        }
    }

    /** Records into one registry. */
    private static final class Recorder extends Renewals {

        private final Timer acquired;
        private final Timer notObtained;
        private final Timer failed;
        private final Map<LeaseLossReason, Counter> lost = new EnumMap<>(LeaseLossReason.class);
        private final Counter atRisk;
        private final Counter releaseRequested;

        Recorder(MeterRegistry registry) {
            super(registry);
            acquired = acquireTimer(registry, "acquired");
            notObtained = acquireTimer(registry, "not_obtained");
            failed = acquireTimer(registry, "failed");
            for (LeaseLossReason reason : LeaseLossReason.values()) {
                lost.put(reason, Counter.builder("fenceguard.lease.lost")
                        .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                        .description("Leases lost while held").register(registry));
            }
            atRisk = Counter.builder("fenceguard.lease.at-risk")
                    .description("Held leases whose renewals failed until less than the at-risk share was left")
                    .register(registry);
            releaseRequested = Counter.builder("fenceguard.lease.release-requested")
                    .description("Requests to release a held lease told to its holder").register(registry);
        }

        private static Timer acquireTimer(MeterRegistry registry, String outcome) {
            return Timer.builder("fenceguard.lease.acquire").tag("outcome", outcome)
                    .description("Time to obtain a new lease, waiting included").register(registry);
        }

        @Override
        public void acquired(Lease lease, Duration waited) {
            acquired.record(waited);
        }

        @Override
        public void notObtained(ResourceName resource, Duration waited) {
            notObtained.record(waited);
        }

        @Override
        public void failed(ResourceName resource, Duration waited, Throwable error) {
            failed.record(waited);
        }

        @Override
        public void lost(Lease lease, LeaseLossReason reason) {
            lost.get(reason).increment();
        }

        @Override
        public void atRisk(Lease lease, Duration remaining) {
            atRisk.increment();
        }

        @Override
        public void releaseRequested(Lease lease, String reason) {
            releaseRequested.increment();
        }
    }
}
