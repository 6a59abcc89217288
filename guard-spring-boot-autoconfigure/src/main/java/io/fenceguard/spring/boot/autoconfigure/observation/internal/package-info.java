/**
 * The recording of the auto-configured high-water store's answers for the actuator endpoint: this module's own,
 * not exported.
 */
package io.fenceguard.spring.boot.autoconfigure.observation.internal;
