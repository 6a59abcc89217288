/**
 * Fencing of R2DBC ConnectionFactory beans (fenceguard-reactor and r2dbc-spi, optional).
 */
package io.fenceguard.spring.r2dbc;
