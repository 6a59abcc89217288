package io.fenceguard.example.events;

import io.fenceguard.example.ledger.AccountIds;
import io.fenceguard.example.ledger.AccountNotFoundException;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** What the events projected for an account (profile events), with the token of the event that wrote it. */
@RestController
public class ProjectionController {

    private final AuditProjection projection;

    public ProjectionController(AuditProjection projection) {
        this.projection = projection;
    }

    @GetMapping("/projection/{id}")
    public AuditProjection.Row get(@PathVariable String id) {
        AccountIds.require(id);
        return projection.find(id).orElseThrow(() -> new AccountNotFoundException(id));
    }
}
