package io.fenceguard.example;

import io.fenceguard.core.LeaseManager;
import java.time.Duration;
import java.util.Map;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** Takes and releases a lease on a resource and answers with its fencing token. */
@RestController
public class LeaseController {

    private final LeaseManager leases;

    public LeaseController(LeaseManager leases) {
        this.leases = leases;
    }

    @PostMapping("/leases/{resource}")
    public Map<String, Object> lease(@PathVariable String resource) {
        return leases.callWithLease(resource, Duration.ofSeconds(5),
                lease -> Map.of("resource", lease.resource().value(), "token", lease.token().value()));
    }
}
