package io.fenceguard.spring.observation;

import io.fenceguard.admission.Problem;
import io.fenceguard.admission.RefusalListener;

/**
 * Requests refused by the HTTP fencing filter (stale tokens, signing failures, …) into
 * {@link ObservedRefusals}, as layer {@code http} with the problem type as reason. Loaded only with
 * fenceguard-http-filter.
 */
public class ObservedHttpRefusals implements RefusalListener {

    private final ObservedRefusals refusals;

    public ObservedHttpRefusals(ObservedRefusals refusals) {
        this.refusals = refusals;
    }

    @Override
    public void refused(String method, String path, Problem problem) {
        refusals.refused("http", reason(problem), problem.resource().map(Object::toString).orElse(null),
                problem.token().map(Object::toString).orElse(null),
                problem.highWater().map(Object::toString).orElse(null), problem.detail());
    }

    private static String reason(Problem problem) {
        String type = problem.type();
        return type.startsWith(Problem.TYPE_PREFIX) ? type.substring(Problem.TYPE_PREFIX.length())
                : String.valueOf(problem.status());
    }
}
