package io.fenceguard.http;

import java.util.Optional;

/** The gate's answer for one request: not guarded, admitted with an inbound token, or refused with a problem. */
public final class Verdict {

    private static final Verdict UNGUARDED = new Verdict(null, null);

    private final Admission admission;
    private final Problem problem;

    private Verdict(Admission admission, Problem problem) {
        this.admission = admission;
        this.problem = problem;
    }

    static Verdict unguarded() {
        return UNGUARDED;
    }

    static Verdict admitted(Admission admission) {
        return new Verdict(admission, null);
    }

    static Verdict refused(Problem problem) {
        return new Verdict(null, problem);
    }

    public boolean guarded() {
        return this != UNGUARDED;
    }

    /** The admission when the request may proceed under a token. */
    public Optional<Admission> admission() {
        return Optional.ofNullable(admission);
    }

    /** The problem when the request is refused. */
    public Optional<Problem> problem() {
        return Optional.ofNullable(problem);
    }

    public Optional<InboundToken> inboundToken() {
        return admission().map(a -> InboundToken.of(a.resource(), a.presented()));
    }

    @Override
    public String toString() {
        return !guarded() ? "Verdict[unguarded]" : admission != null ? "Verdict[" + admission + "]" : "Verdict[" + problem + "]";
    }
}
