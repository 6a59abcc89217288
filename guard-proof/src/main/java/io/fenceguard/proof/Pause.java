package io.fenceguard.proof;

/**
 * A pause the nemesis asks an in-process client to take in its next operation, longer than the lease.
 *
 * @param beforeRead     pause between taking the lock and the first read (else between read and write)
 * @param pastLocalCheck the pause strikes after the client's own lease check (see {@link Grant#pause})
 */
public record Pause(long millis, boolean beforeRead, boolean pastLocalCheck) {
}
