/** fenceguard's exception translation on Spring's R2DBC {@code DatabaseClient} (and Spring Data R2DBC on it). */
package io.fenceguard.spring.dao.r2dbc;
