/**
 * The Spring side of R2DBC fencing: a bean post-processor that fences the context's ConnectionFactory beans.
 * Loaded only in a Spring context (spring-context is optional here).
 */
package io.fenceguard.reactor.spring;
