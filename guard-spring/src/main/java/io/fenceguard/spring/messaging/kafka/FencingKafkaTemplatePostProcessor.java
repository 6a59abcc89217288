package io.fenceguard.spring.messaging.kafka;

import io.fenceguard.messaging.kafka.FencingProducerInterceptor;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.springframework.beans.DirectFieldAccessor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Sets the fencing producer interceptor on every {@link KafkaTemplate} bean (Boot offers no customizer of
 * the template). The template calls it on the sending thread and lets its exception through, so a send
 * under a lost lease fails and nothing is sent. An interceptor the template already has runs after it.
 * Loaded only with spring-kafka and fenceguard-messaging.
 */
public class FencingKafkaTemplatePostProcessor implements BeanPostProcessor {

    private final ObjectProvider<FencingProducerInterceptor<Object, Object>> interceptor;

    /** @param interceptor looked up at each template: a post-processor is created before other beans */
    public FencingKafkaTemplatePostProcessor(ObjectProvider<FencingProducerInterceptor<Object, Object>> interceptor) {
        this.interceptor = interceptor;
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof KafkaTemplate template) {
            FencingProducerInterceptor<Object, Object> fencing = interceptor.getIfAvailable();
            if (fencing == null) {
                return bean;
            }
            // KafkaTemplate has no getter for it; the field is its own, read once at start-up
            Object existing = new DirectFieldAccessor(template).getPropertyValue("producerInterceptor");
            if (existing == null) {
                template.setProducerInterceptor(fencing);
            } else if (!(existing instanceof FencingProducerInterceptor) && !(existing instanceof Chained)) {
                template.setProducerInterceptor(new Chained(fencing, (ProducerInterceptor<Object, Object>) existing));
            }
        }
        return bean;
    }

    /**
     * The fencing interceptor, then the template's own. Unlike Spring Kafka's composite, exceptions pass, so a
     * lost lease still fails the send.
     */
    static final class Chained implements ProducerInterceptor<Object, Object> {

        private final ProducerInterceptor<Object, Object> first;
        private final ProducerInterceptor<Object, Object> second;

        Chained(ProducerInterceptor<Object, Object> first, ProducerInterceptor<Object, Object> second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
            return second.onSend(first.onSend(record));
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            first.onAcknowledgement(metadata, exception);
            second.onAcknowledgement(metadata, exception);
        }

        @Override
        public void close() {
            try {
                first.close();
            } finally {
                second.close();
            }
        }

        @Override
        public void configure(Map<String, ?> configs) {
            first.configure(configs);
            second.configure(configs);
        }
    }
}
