/**
 * Leases and refusals as Micrometer observations (ObservedLeases; ObservedRefusals, the refusal listener of every
 * layer), lease meters (FenceguardLeaseMetrics, with micrometer-core, optional), and what this instance has seen
 * (FenceguardActivity). {@code observation.internal} is the auto-configuration's, not API.
 */
package io.fenceguard.spring.observation;
