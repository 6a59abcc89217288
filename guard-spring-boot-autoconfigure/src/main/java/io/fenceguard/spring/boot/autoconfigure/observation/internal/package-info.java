/**
 * The auto-configuration's recording of high-water answers for the actuator endpoint: exported only to
 * fenceguard-spring-boot-autoconfigure, not API.
 */
package io.fenceguard.spring.observation.internal;
