package io.fenceguard.admission;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Guards a controller method: its requests must carry a current fencing token for the resource.
 * With Spring MVC or WebFlux the method's own mappings (paths and HTTP methods) become routes of the
 * fencing filter (the servlet {@code FencingFilter} of fenceguard-http-filter, or the WebFlux one of fenceguard-reactor).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface FencedEndpoint {

    /**
     * The resource, as a template over the mapping's path variables ({@code account:{id}}); empty
     * for the resource named by the fencing header.
     */
    String resource() default "";
}
