/**
 * Lease meters with Micrometer (micrometer-core, optional).
 */
package io.fenceguard.spring.metrics;
