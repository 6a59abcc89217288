/**
 * Leases and refusals as Micrometer observations, and what this instance has seen (FenceguardActivity). The adapters of HTTP, JDBC and message refusals are loaded only with their module.
 */
package io.fenceguard.spring.observation;
