package io.fenceguard.example.ops;

import io.fenceguard.admission.Problem;
import io.fenceguard.core.Refusal;
import io.fenceguard.core.RefusalListener;
import org.springframework.stereotype.Component;

/**
 * Feeds the fencing filter's refusals into the {@link RejectionLog}; 409 is a stale token. Refused statements are
 * recorded where they reach the application (ProblemHandlers), beside lost leases, so they are left out here.
 */
@Component
public class HttpRefusals implements RefusalListener {

    private final RejectionLog log;

    public HttpRefusals(RejectionLog log) {
        this.log = log;
    }

    @Override
    public void refused(Refusal refusal) {
        refusal.original(Problem.class).ifPresent(problem -> log.record("http",
                refusal.resource().map(Object::toString).orElse(null),
                refusal.token().map(t -> t.value()).orElse(null), problem.status() == 409,
                problem.status() + " " + problem.title() + " on " + refusal.where().orElse("")));
    }
}
