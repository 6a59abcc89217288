package io.fenceguard.docs.messaging;

import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.amqp.FencingListenerAdvice;
import io.fenceguard.messaging.amqp.RabbitFencing;
import io.fenceguard.messaging.kafka.FencingConsumerInterceptor;
import io.fenceguard.messaging.kafka.FencingRecordInterceptor;
import io.fenceguard.messaging.kafka.KafkaFencing;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;

/** Compiled: admitting a Kafka poll and a RabbitMQ batch in one call of the store, from the messaging guide. */
final class BatchAdmissionSamples {

    static void kafka(DefaultKafkaConsumerFactory<String, String> consumers, KafkaTemplate<String, String> template,
            ConcurrentKafkaListenerContainerFactory<String, String> factory, HighWaterStore marks) {
        // tag::kafka-per-poll[]
        MessageAdmission admission = MessageAdmission.of(marks);
        consumers.updateConfigs(FencingConsumerInterceptor.configs(admission));   // admits each poll in one call
        factory.setConsumerFactory(consumers);
        factory.setRecordInterceptor(new FencingRecordInterceptor<>(admission));  // applies the poll's decisions
        factory.setCommonErrorHandler(KafkaFencing.errorHandler(template));       // refused → <topic>-dlt
        // end::kafka-per-poll[]
    }

    static void rabbit(SimpleRabbitListenerContainerFactory factory, RabbitTemplate rabbitTemplate, HighWaterStore marks) {
        // tag::rabbit-batch[]
        factory.setConsumerBatchEnabled(true);
        factory.setBatchListener(true);
        factory.setBatchSize(100);
        factory.setAdviceChain(FencingListenerAdvice.of(MessageAdmission.of(marks))   // one call per batch
                .deadLetteringTo(RabbitFencing.deadLetterRecoverer(rabbitTemplate, "orders.dlx")));
        // end::rabbit-batch[]
    }

    private BatchAdmissionSamples() {
    }
}
