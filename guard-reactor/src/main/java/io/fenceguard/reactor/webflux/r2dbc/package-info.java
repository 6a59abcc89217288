/**
 * The WebFlux filter's admissions and idempotency keys on PostgreSQL through R2DBC, without blocking, in the JDBC
 * store's tables and with its statements, and the admission joined to the handler's R2DBC transaction (spring-r2dbc
 * and r2dbc-spi optional): {@link io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore},
 * {@link io.fenceguard.reactor.webflux.r2dbc.R2dbcAdmissionTransaction}.
 */
package io.fenceguard.reactor.webflux.r2dbc;
