/**
 * {@code @Fenced} methods on Spring beans: {@link io.fenceguard.spring.method.EnableFencedMethods}, or the
 * {@link io.fenceguard.spring.method.FencedMethodAdvisor} registered by hand.
 */
package io.fenceguard.spring.method;
