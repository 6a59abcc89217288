/**
 * Spring web stacks' handler methods as fenced routes: the part shared by Spring MVC's routes (fenceguard-http)
 * and WebFlux's (fenceguard-reactor).
 */
package io.fenceguard.spring.web;
