/**
 * Fault injection around any {@link io.fenceguard.core.spi.LeaseProvider}, kept out of the public API:
 * {@link io.fenceguard.testsupport.faults.PausableLeaseProvider} withholds renewals as a GC pause of the
 * holder would.
 */
package io.fenceguard.testsupport.faults;
