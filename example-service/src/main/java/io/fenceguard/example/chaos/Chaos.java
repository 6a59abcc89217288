package io.fenceguard.example.chaos;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Stop-the-world pauses on request, for demonstrations and fault tests: only with
 * {@code example.chaos.enabled=true} (which also puts {@link ChaosLeaseProvider} in front of the lease
 * store); otherwise {@code pauseMs} is ignored.
 */
@Component
public class Chaos {

    private final boolean enabled;
    private final LeaseManager leases;

    public Chaos(@Value("${example.chaos.enabled:false}") boolean enabled, LeaseManager leases) {
        this.enabled = enabled;
        this.leases = leases;
    }

    public boolean enabled() {
        return enabled;
    }

    /** Sleeps with the lease's renewals withheld, as a GC pause or a frozen VM would. */
    public void pause(Lease lease, int pauseMs) {
        if (!enabled || pauseMs <= 0) {
            return;
        }
        if (!(leases.provider() instanceof ChaosLeaseProvider chaos)) {
            throw new IllegalStateException("example.chaos.enabled is true but the lease store is "
                    + leases.provider().describe() + ", not wrapped for chaos pauses");
        }
        chaos.pauseRenewals(lease.holder(), Duration.ofMillis(pauseMs));
        try {
            Thread.sleep(pauseMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during a chaos pause", e);
        }
    }
}
