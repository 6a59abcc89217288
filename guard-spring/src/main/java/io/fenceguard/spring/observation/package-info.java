/**
 * Leases and refusals as Micrometer observations (ObservedLeases; ObservedRefusals, the refusal listener of every
 * layer), lease meters (FenceguardLeaseMetrics, with micrometer-core, optional), and what this instance has seen
 * (FenceguardActivity).
 */
package io.fenceguard.spring.observation;
