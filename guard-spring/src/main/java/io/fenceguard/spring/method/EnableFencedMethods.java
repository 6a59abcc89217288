package io.fenceguard.spring.method;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Applies {@link io.fenceguard.core.annotation.Fenced} to the beans of a Spring application without Spring
 * Boot: put it on a {@code @Configuration} class of a context that has a {@link io.fenceguard.core.LeaseManager}
 * bean ({@link FencedMethodsConfiguration}).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Documented
@Import(FencedMethodsConfiguration.class)
public @interface EnableFencedMethods {
}
