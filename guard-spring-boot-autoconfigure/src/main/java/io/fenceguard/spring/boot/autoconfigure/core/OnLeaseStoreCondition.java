package io.fenceguard.spring.boot.autoconfigure.core;

import java.util.Arrays;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Binds {@code fenceguard.lease.store} as Boot does (relaxed case) and compares it with the wanted stores. */
class OnLeaseStoreCondition extends SpringBootCondition {

    static final String PROPERTY = "fenceguard.lease.store";

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnLeaseStore.class.getName());
        LeaseStore[] wanted = (LeaseStore[]) attributes.get("value");
        LeaseStore store = configured(context);
        String message = PROPERTY + " is " + store.name().toLowerCase() + ", wanted one of " + Arrays.toString(wanted);
        return Arrays.asList(wanted).contains(store) ? ConditionOutcome.match(message) : ConditionOutcome.noMatch(message);
    }

    static LeaseStore configured(ConditionContext context) {
        return Binder.get(context.getEnvironment()).bind(PROPERTY, LeaseStore.class).orElse(LeaseStore.AUTO);
    }
}
