package io.fenceguard.core.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method under a lease on the resource named by a SpEL expression over its parameters,
 * bound to {@code LeaseContext} for the writes it makes, and released afterwards:
 * {@code @Fenced("'account:' + #id")}. Applied by the Spring auto-configuration to Spring beans; the
 * lease is taken outside any transaction the method starts, so the transaction runs under it.
 * Outside Spring, use {@code LeaseManager.callWithLease}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Fenced {

    /** SpEL expression giving the resource name; parameters are {@code #name} (or {@code #p0}, {@code #a0}). */
    String value();

    /** How long to wait for the lease, as {@code 500ms}, {@code 5s} or ISO-8601; empty means the default wait. */
    String waitFor() default "";
}
