package io.fenceguard.spring.boot.autoconfigure.messaging;

import io.fenceguard.core.RefusalListener;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpProperties;
import io.fenceguard.spring.boot.autoconfigure.http.internal.HttpServerSupport;
import io.fenceguard.spring.boot.autoconfigure.observation.FenceguardObservationAutoConfiguration;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.amqp.FencingListenerAdvice;
import io.fenceguard.messaging.amqp.FencingMessagePostProcessor;
import io.fenceguard.messaging.amqp.RabbitFencing;
import io.fenceguard.messaging.kafka.FencingConsumerInterceptor;
import io.fenceguard.messaging.kafka.FencingProducerInterceptor;
import io.fenceguard.messaging.kafka.FencingRecordInterceptor;
import io.fenceguard.messaging.kafka.KafkaFencing;
import io.fenceguard.spring.messaging.amqp.FencingRabbitListenerFactoryPostProcessor;
import io.fenceguard.spring.messaging.kafka.FencingKafkaTemplatePostProcessor;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.amqp.autoconfigure.RabbitTemplateCustomizer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaConsumerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Message fencing ({@code fenceguard.messaging.*}) for Spring Kafka and Spring AMQP, each when present:
 * templates put the current lease's fence on what they send; Boot's listener container factories admit
 * only messages with a current fence (the same high-water store as the HTTP filter, chosen by
 * {@code fenceguard.http.store.*}), run the listener under it, and dead-letter the others with the reason.
 */
@AutoConfiguration(after = {FenceguardHttpAutoConfiguration.class, FenceguardObservationAutoConfiguration.class},
        afterName = {"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
                "org.redisson.spring.starter.RedissonAutoConfigurationV2",
                "org.redisson.spring.starter.RedissonAutoConfiguration",
                // Boot's listener factories take the beans below through ObjectProviders, when they are created
                "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
                "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration"})
@ConditionalOnClass({MessageAdmission.class, FenceguardHttpProperties.class})
@Conditional(FenceguardMessagingAutoConfiguration.OnBroker.class)
@EnableConfigurationProperties({FenceguardMessagingProperties.class, FenceguardHttpProperties.class})
public class FenceguardMessagingAutoConfiguration {

    /** The store shared with HTTP admission: the HTTP filter's when it has one, else the same configuration. */
    @Bean
    @ConditionalOnMissingBean
    HighWaterStore highWaterStore(FenceguardHttpProperties properties, BeanFactory beans) {
        return HttpServerSupport.highWaterStore(properties, beans);
    }

    /**
     * Admission of incoming messages, bounded like HTTP admission; every RefusalListener bean (observations,
     * the endpoint, the application's own) hears of refusals.
     */
    @Bean
    @ConditionalOnMissingBean
    MessageAdmission messageAdmission(HighWaterStore store, ObjectProvider<RefusalListener> listeners,
                                      FenceguardHttpProperties properties, BeanFactory beans) {
        // The HTTP filter's bound when there is one, else the same rule: epoch tokens by their source, else the clock.
        TokenBound bound = beans.getBeanProvider(TokenBound.class)
                .getIfAvailable(() -> HttpServerSupport.tokenBound(properties, beans));
        // One listener's failure neither changes the answer nor silences the others.
        MessageAdmission admission = MessageAdmission.of(store, RefusalListener.all(listeners.orderedStream().toList()))
                .withTokenBound(bound);
        var issued = HttpServerSupport.issuedTokens(beans);
        return issued == null ? admission : admission.withIssuedTokens(issued);
    }

    /** Kafka: KafkaTemplate beans stamp records; Boot's container factory admits them and dead-letters refusals. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({KafkaTemplate.class, FencingRecordInterceptor.class,
            org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration.class})
    @ConditionalOnBooleanProperty(name = FenceguardMessagingProperties.PREFIX + ".kafka.enabled", matchIfMissing = true)
    static class Kafka {

        @Bean
        @ConditionalOnMissingBean
        FencingProducerInterceptor<Object, Object> fencingProducerInterceptor() {
            return new FencingProducerInterceptor<>();
        }

        @Bean
        static FencingKafkaTemplatePostProcessor fencingKafkaTemplatePostProcessor(
                ObjectProvider<FencingProducerInterceptor<Object, Object>> interceptor) {
            return new FencingKafkaTemplatePostProcessor(interceptor);
        }

        /** Taken by Boot's listener container factory; an application's own RecordInterceptor replaces it. */
        @Bean
        @ConditionalOnMissingBean(RecordInterceptor.class)
        FencingRecordInterceptor<Object, Object> fencingRecordInterceptor(MessageAdmission admission) {
            return new FencingRecordInterceptor<>(admission);
        }

        /**
         * Boot's consumers admit each poll at once ({@code fenceguard.messaging.kafka.admit-per-poll}), the
         * record interceptor then applies the decisions; interceptors the application configured stay, before ours.
         */
        @Bean
        @ConditionalOnBooleanProperty(name = FenceguardMessagingProperties.PREFIX + ".kafka.admit-per-poll",
                matchIfMissing = true)
        @ConditionalOnMissingBean(name = "fencingConsumerFactoryCustomizer")
        DefaultKafkaConsumerFactoryCustomizer fencingConsumerFactoryCustomizer(MessageAdmission admission,
                ObjectProvider<FencingRecordInterceptor<Object, Object>> recordInterceptor) {
            return factory -> {
                // the poll's decisions are applied by our record interceptor: an application's own replaces both
                if (recordInterceptor.getIfUnique() != null) {
                    factory.updateConfigs(FencingConsumerInterceptor.configs(admission,
                            factory.getConfigurationProperties().get(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG)));
                }
            };
        }

        /**
         * Refused records to {@code <topic><dead-letter-topic-suffix>} at once, with the reason in headers;
         * other failures after two retries a second apart. Taken by Boot's listener container factory.
         */
        @Bean
        @ConditionalOnMissingBean(CommonErrorHandler.class)
        @ConditionalOnSingleCandidate(KafkaOperations.class)
        CommonErrorHandler fencingKafkaErrorHandler(KafkaOperations<?, ?> template, FenceguardMessagingProperties properties) {
            String suffix = properties.getKafka().getDeadLetterTopicSuffix();
            DeadLetterPublishingRecoverer recoverer = new DeadLetterPublishingRecoverer(template,
                    (record, failure) -> new TopicPartition(record.topic() + suffix, record.partition()));
            KafkaFencing.addRefusalHeaders(recoverer);
            return KafkaFencing.errorHandler(recoverer, new FixedBackOff(1000L, 2L));
        }
    }

    /** RabbitMQ: Boot's RabbitTemplate stamps messages; every listener container factory admits them. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RabbitTemplate.class, FencingListenerAdvice.class, RabbitTemplateCustomizer.class})
    @ConditionalOnBooleanProperty(name = FenceguardMessagingProperties.PREFIX + ".rabbit.enabled", matchIfMissing = true)
    static class Rabbit {

        @Bean
        @ConditionalOnMissingBean
        FencingMessagePostProcessor fencingMessagePostProcessor() {
            return new FencingMessagePostProcessor();
        }

        @Bean
        @ConditionalOnMissingBean(name = "fencingRabbitTemplateCustomizer")
        RabbitTemplateCustomizer fencingRabbitTemplateCustomizer(FencingMessagePostProcessor postProcessor) {
            return template -> template.addBeforePublishPostProcessors(postProcessor);
        }

        @Bean
        @ConditionalOnMissingBean
        FencingListenerAdvice fencingListenerAdvice(MessageAdmission admission, FenceguardMessagingProperties properties,
                ObjectProvider<RabbitTemplate> templates) {
            FencingListenerAdvice advice = FencingListenerAdvice.of(admission);
            String exchange = properties.getRabbit().getDeadLetterExchange();
            if (exchange == null || exchange.isBlank()) {
                return advice;
            }
            RabbitTemplate template = templates.getIfUnique();
            if (template == null) {
                throw new IllegalStateException(FenceguardMessagingProperties.PREFIX + ".rabbit.dead-letter-exchange="
                        + exchange + " needs exactly one RabbitTemplate bean to republish refused messages with, or a "
                        + "FencingListenerAdvice bean of your own");
            }
            return advice.deadLetteringTo(RabbitFencing.deadLetterRecoverer(template, exchange));
        }

        @Bean
        static FencingRabbitListenerFactoryPostProcessor fencingRabbitListenerFactoryPostProcessor(
                ObjectProvider<FencingListenerAdvice> advice) {
            return new FencingRabbitListenerFactoryPostProcessor(advice);
        }
    }

    /** Matches when Spring Kafka or Spring AMQP is on the class path. */
    static class OnBroker extends AnyNestedCondition {

        OnBroker() {
            super(ConfigurationCondition.ConfigurationPhase.PARSE_CONFIGURATION);
        }

        @ConditionalOnClass(name = "org.springframework.kafka.core.KafkaTemplate")
        static class OnKafka {
        }

        @ConditionalOnClass(name = "org.springframework.amqp.rabbit.core.RabbitTemplate")
        static class OnRabbit {
        }
    }
}
