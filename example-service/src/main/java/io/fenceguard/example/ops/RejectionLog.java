package io.fenceguard.example.ops;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * The most recent refusals of this instance (stale tokens, lost leases, bad headers), with their
 * resources, and the metric {@code example.stale.rejections{layer}} for the stale ones. The resource is
 * not a tag: there is one per account, without bound.
 */
@Component
public class RejectionLog {

    static final int KEPT = 100;

    private final MeterRegistry meters;
    private final Deque<Rejection> recent = new ArrayDeque<>();

    public RejectionLog(MeterRegistry meters) {
        this.meters = meters;
    }

    public record Rejection(Instant at, String layer, String resource, Long token, boolean stale, String reason) {
    }

    public void record(String layer, String resource, Long token, boolean stale, String reason) {
        if (stale) {
            meters.counter("example.stale.rejections", "layer", layer).increment();
        }
        synchronized (recent) {
            recent.addFirst(new Rejection(Instant.now(), layer, resource, token, stale, reason));
            while (recent.size() > KEPT) {
                recent.removeLast();
            }
        }
    }

    public List<Rejection> recent() {
        synchronized (recent) {
            return List.copyOf(recent);
        }
    }
}
