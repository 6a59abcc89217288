package io.fenceguard.core;

/** A resource name that cannot be used; nothing was sent to the lock store. */
public class InvalidResourceNameException extends FenceguardException {

    private final String rejectedName;

    public InvalidResourceNameException(String rejectedName, String reason) {
        super("invalid resource name '" + rejectedName + "': " + reason, null, null);
        this.rejectedName = rejectedName;
    }

    public String rejectedName() {
        return rejectedName;
    }
}
