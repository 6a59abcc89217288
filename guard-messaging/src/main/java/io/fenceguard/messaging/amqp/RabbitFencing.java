package io.fenceguard.messaging.amqp;

import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.MessageRefusedException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.amqp.core.AmqpTemplate;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.retry.RepublishMessageRecoverer;

/** Spring AMQP wiring for fenced consumers. */
public final class RabbitFencing {

    private RabbitFencing() {
    }

    /**
     * A {@link RepublishMessageRecoverer} that publishes refused messages to {@code deadLetterExchange} under
     * their original routing key, with Spring AMQP's {@code x-exception-*} and {@code x-original-*} headers
     * and the {@code fenceguard-refusal*} headers.
     */
    public static RepublishMessageRecoverer deadLetterRecoverer(AmqpTemplate template, String deadLetterExchange) {
        return new RefusalRecoverer(template, deadLetterExchange);
    }

    private static final class RefusalRecoverer extends RepublishMessageRecoverer {

        RefusalRecoverer(AmqpTemplate template, String exchange) {
            super(template, exchange);
            includeStackTrace(false);
        }

        @Override
        protected String prefixedOriginalRoutingKey(Message message) {
            return message.getMessageProperties().getReceivedRoutingKey();
        }

        @Override
        protected Map<? extends String, ?> additionalHeaders(Message message, Throwable cause) {
            Optional<MessageRefusedException> refused = MessageRefusedException.in(cause);
            if (refused.isEmpty()) {
                return null;
            }
            Map<String, Object> headers = new HashMap<>();
            headers.put(MessageHeaders.REFUSAL, refused.get().reason().name());
            headers.put(MessageHeaders.REFUSAL_MESSAGE, refused.get().getMessage());
            refused.get().highWater().ifPresent(hw -> headers.put(MessageHeaders.HIGH_WATER, String.valueOf(hw.value())));
            return headers;
        }
    }
}
