/**
 * Fault injection, kept out of the public API:
 * {@link io.fenceguard.test.support.faults.PausableLeaseProvider} withholds renewals of any
 * {@link io.fenceguard.core.spi.LeaseProvider} as a GC pause of the holder would;
 * {@link io.fenceguard.test.support.faults.ShiftedClock} steps the wall clock of a child process (a
 * test's own {@code redis-server}) forward and back through an LD_PRELOAD shim ({@link
 * io.fenceguard.test.support.faults.ClockShim}).
 */
package io.fenceguard.test.support.faults;
