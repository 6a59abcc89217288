package io.fenceguard.spring.boot.autoconfigure.observation;

import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.ResourceName;
import io.fenceguard.spring.observation.FenceguardActivity;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * {@code /actuator/fenceguard}: the leases this instance holds (resource, token, remaining time), the
 * high-water marks its stores answered, its most recent refusals; and, as a write operation
 * ({@code POST {"resource": "account:42"}}), the release of a lease this instance acquired: the holder's
 * next fenced write then fails with {@code LEASE_LOST}, and the lock is free for others at once.
 */
@Endpoint(id = "fenceguard")
public class FenceguardEndpoint {

    private final LeaseManager leases;
    private final FenceguardActivity activity;

    public FenceguardEndpoint(LeaseManager leases, FenceguardActivity activity) {
        this.leases = leases;
        this.activity = activity;
    }

    @ReadOperation
    public Map<String, Object> state() {
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("clientId", leases.clientId());
        state.put("store", leases.provider().describe());
        state.put("leases", leases.heldLeases().stream().map(l -> {
            Map<String, Object> lease = new LinkedHashMap<>();
            lease.put("resource", l.fence().resource().value());
            lease.put("token", String.valueOf(l.fence().token().value()));
            lease.put("holder", l.holder());
            lease.put("remainingMs", l.remaining().toMillis());
            lease.put("valid", l.valid());
            return lease;
        }).toList());
        state.put("highWaterMarks", activity.highWaterMarks());
        state.put("recentRefusals", activity.recentRefusals());
        return state;
    }

    /** Releases the lease this instance acquired on {@code resource}: 200 when released, 404 when none is held. */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> release(String resource) {
        ResourceName name;
        try {
            name = ResourceName.of(resource);
        } catch (InvalidResourceNameException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), "invalid resource name");
        }
        Optional<Lease> held = activity.held(name);
        if (held.isEmpty()) {
            return new WebEndpointResponse<>(Map.of("resource", resource, "released", false,
                    "reason", "this instance holds no lease on it"), WebEndpointResponse.STATUS_NOT_FOUND);
        }
        Lease lease = held.get();
        lease.close();
        return new WebEndpointResponse<>(Map.of("resource", resource, "released", true,
                "token", String.valueOf(lease.token().value())), WebEndpointResponse.STATUS_OK);
    }
}
