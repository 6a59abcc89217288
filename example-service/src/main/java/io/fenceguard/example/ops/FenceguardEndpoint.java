package io.fenceguard.example.ops;

import io.fenceguard.core.LeaseManager;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.stereotype.Component;

/** {@code /actuator/fenceguard}: this instance's current leases and its most recent rejections. */
@Component
@Endpoint(id = "fenceguard")
public class FenceguardEndpoint {

    private final LeaseManager leases;
    private final RejectionLog rejections;

    public FenceguardEndpoint(LeaseManager leases, RejectionLog rejections) {
        this.leases = leases;
        this.rejections = rejections;
    }

    @ReadOperation
    public Map<String, Object> state() {
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("clientId", leases.clientId());
        state.put("store", leases.provider().describe());
        state.put("leases", leases.heldLeases().stream().map(l -> Map.of(
                "resource", l.fence().resource().value(), "token", l.fence().token().value(), "holder", l.holder(),
                "remainingMs", l.remaining().toMillis(), "valid", l.valid())).toList());
        List<RejectionLog.Rejection> recent = rejections.recent();
        state.put("recentRejections", recent);
        return state;
    }
}
