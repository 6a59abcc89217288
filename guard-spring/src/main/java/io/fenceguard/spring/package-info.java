/**
 * fenceguard in a Spring application, without Spring Boot: {@code @Fenced} methods
 * ({@link io.fenceguard.spring.method}), lease release bound to the transaction, metrics and observations,
 * and the post-processors that fence DataSources, R2DBC factories and message templates. Each part needs only
 * its own library; Spring Boot's auto-configuration wires them.
 */
package io.fenceguard.spring;
