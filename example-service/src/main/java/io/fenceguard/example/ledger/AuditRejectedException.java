package io.fenceguard.example.ledger;

/** The audit service refused the entry; the deposit is rolled back. */
public class AuditRejectedException extends RuntimeException {

    private final int status;

    public AuditRejectedException(int status, String detail) {
        super("the audit service refused the entry with " + status + ": " + detail);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
