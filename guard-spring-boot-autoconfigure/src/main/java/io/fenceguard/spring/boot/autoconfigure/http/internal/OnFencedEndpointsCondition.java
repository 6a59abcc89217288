package io.fenceguard.spring.boot.autoconfigure.http.internal;

import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpProperties;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;

/**
 * Whether the application has fenced endpoints: routes in {@code fenceguard.http.server.routes}, a
 * controller with a {@link FencedEndpoint} method, or an {@link InboundFence} bean of its own.
 * Controllers are found by their bean definitions' types, without creating any bean; so the
 * condition is evaluated when beans are registered, after the application's own definitions.
 */
public class OnFencedEndpointsCondition extends SpringBootCondition implements ConfigurationCondition {

    private static final String ROUTES = FenceguardHttpProperties.PREFIX + ".server.routes";

    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        ConditionMessage.Builder message = ConditionMessage.forCondition("fenced HTTP endpoints");
        List<FenceguardHttpProperties.Route> routes = Binder.get(context.getEnvironment())
                .bind(ROUTES, Bindable.listOf(FenceguardHttpProperties.Route.class)).orElse(List.of());
        if (!routes.isEmpty()) {
            return ConditionOutcome.match(message.found("configured route", "configured routes")
                    .items(routes.stream().map(FenceguardHttpProperties.Route::getPath).toList()));
        }
        ConfigurableListableBeanFactory beans = context.getBeanFactory();
        if (beans == null) {
            return ConditionOutcome.noMatch(message.because("there is no bean factory to look for @FencedEndpoint in"));
        }
        if (beans.getBeanNamesForType(InboundFence.class, true, false).length > 0) {
            return ConditionOutcome.match(message.found("InboundFence bean").atAll());
        }
        List<String> handlers = fencedHandlers(beans);
        if (!handlers.isEmpty()) {
            return ConditionOutcome.match(message.found("@FencedEndpoint method", "@FencedEndpoint methods")
                    .items(handlers));
        }
        return ConditionOutcome.noMatch(message.didNotFind("configured route or @FencedEndpoint method").atAll());
    }

    private static List<String> fencedHandlers(ConfigurableListableBeanFactory beans) {
        List<String> handlers = new ArrayList<>();
        for (String name : beans.getBeanDefinitionNames()) {
            Class<?> type;
            try {
                type = beans.getType(name, false);
            } catch (RuntimeException | LinkageError e) {
                continue;
            }
            if (type == null) {
                continue;
            }
            Class<?> user = ClassUtils.getUserClass(type);
            if (!AnnotatedElementUtils.hasAnnotation(user, Controller.class)) {
                continue;
            }
            Map<Method, Boolean> fenced = MethodIntrospector.selectMethods(user,
                    (MethodIntrospector.MetadataLookup<Boolean>) method ->
                            AnnotatedElementUtils.hasAnnotation(method, FencedEndpoint.class) ? Boolean.TRUE : null);
            fenced.keySet().forEach(method -> handlers.add(user.getSimpleName() + "." + method.getName()));
        }
        return handlers;
    }
}
