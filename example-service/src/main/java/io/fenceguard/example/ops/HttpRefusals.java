package io.fenceguard.example.ops;

import io.fenceguard.admission.Problem;
import io.fenceguard.admission.RefusalListener;
import org.springframework.stereotype.Component;

/** Feeds the fencing filter's refusals into the {@link RejectionLog}; 409 is a stale token. */
@Component
public class HttpRefusals implements RefusalListener {

    private final RejectionLog log;

    public HttpRefusals(RejectionLog log) {
        this.log = log;
    }

    @Override
    public void refused(String method, String path, Problem problem) {
        log.record("http", problem.resource().map(Object::toString).orElse(null),
                problem.token().map(t -> t.value()).orElse(null), problem.status() == 409,
                problem.status() + " " + problem.title() + " on " + method + " " + path);
    }
}
