/**
 * fenceguard in a Spring application, without Spring Boot.
 */
package io.fenceguard.spring;
