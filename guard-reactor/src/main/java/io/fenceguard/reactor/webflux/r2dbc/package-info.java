/**
 * The WebFlux filter's admission joined to the handler's R2DBC transaction on PostgreSQL (spring-r2dbc and
 * r2dbc-spi optional): {@link io.fenceguard.reactor.webflux.r2dbc.R2dbcHighWaterStore},
 * {@link io.fenceguard.reactor.webflux.r2dbc.R2dbcAdmissionTransaction}.
 */
package io.fenceguard.reactor.webflux.r2dbc;
