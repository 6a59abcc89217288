package io.fenceguard.spring.messaging.amqp;

import io.fenceguard.messaging.amqp.FencingListenerAdvice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.aopalliance.aop.Advice;
import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Puts the fencing advice first in the advice chain of every Rabbit listener container factory bean (Boot's
 * and the application's, after Boot's configurer has set its retry advice): a refused message is never
 * retried, and an admitted one is retried under its fence. Loaded only with spring-rabbit and
 * fenceguard-messaging.
 */
public class FencingRabbitListenerFactoryPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<FencingListenerAdvice> advice;

    /** @param advice looked up at each factory: a post-processor is created before other beans */
    public FencingRabbitListenerFactoryPostProcessor(ObjectProvider<FencingListenerAdvice> advice) {
        this.advice = advice;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof BaseRabbitListenerContainerFactory<?> factory) {
            Advice[] chain = factory.getAdviceChain();
            List<Advice> advices = chain == null ? new ArrayList<>() : new ArrayList<>(Arrays.asList(chain));
            if (advices.stream().anyMatch(FencingListenerAdvice.class::isInstance)) {
                return bean;
            }
            FencingListenerAdvice fencing = advice.getIfAvailable();
            if (fencing != null) {
                advices.add(0, fencing);
                factory.setAdviceChain(advices.toArray(Advice[]::new));
            }
        }
        return bean;
    }
}
