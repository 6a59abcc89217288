/**
 * Spring web stacks' handler methods as fenced routes: the shared part, and one class for Spring MVC ({@code web.servlet})
 * and one for WebFlux ({@code web.reactive}), each loaded only with its stack.
 */
package io.fenceguard.spring.web;
