package io.fenceguard.admission;

import java.util.Optional;

/** The answer for one request: not fenced, admitted, or refused with a problem. */
public final class Verdict {

    private static final Verdict NOT_FENCED = new Verdict(null, null, null);

    private final Admission admission;
    private final Problem problem;
    private final IdempotencyStore.Claim claim;

    private Verdict(Admission admission, Problem problem, IdempotencyStore.Claim claim) {
        this.admission = admission;
        this.problem = problem;
        this.claim = claim;
    }

    static Verdict notFenced() {
        return NOT_FENCED;
    }

    static Verdict admitted(Admission admission) {
        return new Verdict(admission, null, null);
    }

    static Verdict admitted(Admission admission, IdempotencyStore.Claim claim) {
        return new Verdict(admission, null, claim);
    }

    static Verdict refused(Problem problem) {
        return new Verdict(null, problem, null);
    }

    /** Whether a route fences the request (then it is either admitted or refused). */
    public boolean fenced() {
        return this != NOT_FENCED;
    }

    /** The admission when the request may proceed under the presented fence. */
    public Optional<Admission> admission() {
        return Optional.ofNullable(admission);
    }

    /**
     * The claim of the request's idempotency key when the store decided it with the admission
     * ({@link IdempotentAdmissionStore}); empty otherwise, and then the caller claims the key itself.
     */
    public Optional<IdempotencyStore.Claim> claim() {
        return Optional.ofNullable(claim);
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
