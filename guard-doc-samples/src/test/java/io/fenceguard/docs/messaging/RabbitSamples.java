package io.fenceguard.docs.messaging;

import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.amqp.FencingListenerAdvice;
import io.fenceguard.messaging.amqp.FencingMessagePostProcessor;
import io.fenceguard.messaging.amqp.RabbitFencing;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/** Compiled: the RabbitMQ wiring of the messaging guide. */
final class RabbitSamples {

    static void wire(RabbitTemplate rabbitTemplate, SimpleRabbitListenerContainerFactory factory, HighWaterStore marks) {
        // tag::rabbit[]
        rabbitTemplate.addBeforePublishPostProcessors(new FencingMessagePostProcessor());

        factory.setAdviceChain(FencingListenerAdvice.of(MessageAdmission.of(marks))
                .deadLetteringTo(RabbitFencing.deadLetterRecoverer(rabbitTemplate, "orders.dlx")));
        // end::rabbit[]
    }

    private RabbitSamples() {
    }
}
