/**
 * Fencing of a Spring application's DataSource beans (fenceguard-jdbc and spring-jdbc, optional).
 */
package io.fenceguard.spring.jdbc;
