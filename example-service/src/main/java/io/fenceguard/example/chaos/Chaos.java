package io.fenceguard.example.ledger;

import io.fenceguard.core.Lease;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Stop-the-world pauses on request, for demonstrations and fault tests: only with
 * {@code example.chaos.enabled=true}; otherwise {@code pauseMs} is ignored.
 */
@Component
public class Chaos {

    private final boolean enabled;

    public Chaos(@Value("${example.chaos.enabled:false}") boolean enabled) {
        this.enabled = enabled;
    }

    public boolean enabled() {
        return enabled;
    }

    /** Sleeps with the lease's renewal stopped, as a GC pause or a frozen VM would. */
    public void pause(Lease lease, int pauseMs) {
        if (!enabled || pauseMs <= 0) {
            return;
        }
        lease.suspendRenewal(Duration.ofMillis(pauseMs));
        try {
            Thread.sleep(pauseMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during a chaos pause", e);
        }
    }
}
