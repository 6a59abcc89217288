package io.fenceguard.admission;

import java.util.Optional;

/** The answer for one request: not fenced, admitted, or refused with a problem. */
public final class Verdict {

    private static final Verdict NOT_FENCED = new Verdict(null, null);

    private final Admission admission;
    private final Problem problem;

    private Verdict(Admission admission, Problem problem) {
        this.admission = admission;
        this.problem = problem;
    }

    static Verdict notFenced() {
        return NOT_FENCED;
    }

    static Verdict admitted(Admission admission) {
        return new Verdict(admission, null);
    }

    static Verdict refused(Problem problem) {
        return new Verdict(null, problem);
    }

    /** Whether a route fences the request (then it is either admitted or refused). */
    public boolean fenced() {
        return this != NOT_FENCED;
    }

    /** The admission when the request may proceed under the presented fence. */
    public Optional<Admission> admission() {
        return Optional.ofNullable(admission);
    }

    /** The problem when the request is refused. */
    public Optional<Problem> problem() {
        return Optional.ofNullable(problem);
    }

    @Override
    public String toString() {
        return !fenced() ? "Verdict[not fenced]" : admission != null ? "Verdict[" + admission + "]" : "Verdict[" + problem + "]";
    }
}
