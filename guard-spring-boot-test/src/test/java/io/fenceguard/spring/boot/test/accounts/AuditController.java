package io.fenceguard.spring.boot.test.accounts;

import io.fenceguard.admission.FencedEndpoint;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** A fenced endpoint: the fencing filter admits a call only with the account's newest token so far. */
@RestController
public class AuditController {

    @PostMapping("/audit/{id}")
    @FencedEndpoint(resource = "account:{id}")
    public String audit(@PathVariable String id) {
        return "audited " + id;
    }
}
