package io.fenceguard.messaging.amqp;

import io.fenceguard.admission.OutboundFence;
import io.fenceguard.messaging.MessageHeaders;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessagePostProcessor;

/**
 * Puts the fence of the lease bound to the sending thread on every message, in the
 * {@value MessageHeaders#FENCE} header (replacing one already there); a message sent without a lease is
 * left as it is. Register it with {@code rabbitTemplate.addBeforePublishPostProcessors(...)}: a send under a
 * lost lease then fails (the template wraps the {@link io.fenceguard.core.LeaseLostException}) and nothing is
 * published.
 */
public class FencingMessagePostProcessor implements MessagePostProcessor {

    @Override
    public Message postProcessMessage(Message message) {
        OutboundFence.currentHeaderValue().ifPresent(fence -> message.getMessageProperties().setHeader(MessageHeaders.FENCE, fence));
        return message;
    }
}
