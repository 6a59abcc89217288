package io.fenceguard.spring.method;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure the context has an auto-proxy creator, so that {@link FencedMethodAdvisor} is applied: without
 * one (no {@code @EnableAspectJAutoProxy}, no {@code @EnableTransactionManagement}, Boot's
 * {@code spring.aop.auto=false}) {@code @Fenced} methods would run without a lease, silently. Does nothing
 * when one is registered already.
 */
public class FencedMethodsAutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    }
}
