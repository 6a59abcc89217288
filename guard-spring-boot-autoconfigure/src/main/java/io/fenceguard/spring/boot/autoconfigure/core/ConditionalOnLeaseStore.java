package io.fenceguard.spring.boot.autoconfigure.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Conditional;

/** Matches when {@code fenceguard.lease.store} (default {@code auto}) is one of {@link #value()}. */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Documented
@Conditional(OnLeaseStoreCondition.class)
public @interface ConditionalOnLeaseStore {

    LeaseStore[] value();
}
