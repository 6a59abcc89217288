package io.fenceguard.messaging.amqp;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.MessageHeaders;
import io.fenceguard.messaging.MessageRefusedException;
import java.util.Objects;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.retry.MessageRecoverer;

/**
 * Admits a message to the listener only with a current fence, then binds the admitted fence to
 * {@link LeaseContext} as a presented lease while the listener runs, so the consumer's own SQL writes and
 * outgoing messages carry the producer's token. Add it to the container's advice chain
 * ({@code containerFactory.setAdviceChain(...)}).
 *
 * <p>A refused message is never requeued, whether admission refused it or the listener threw a
 * {@link MessageRefusedException} (as {@link io.fenceguard.messaging.MessageIdempotency} does). With a recoverer ({@link #deadLetteringTo}, usually
 * {@link RabbitFencing#deadLetterRecoverer}) it is republished to the dead-letter exchange with the reason
 * in headers and acknowledged; without one, or when the republish fails, it is rejected without requeue,
 * so the queue's own dead-letter exchange (argument {@code x-dead-letter-exchange}) receives it.
 *
 * <p>Batch listeners are refused: one fence per delivery is what is admitted.
 */
public final class FencingListenerAdvice implements MethodInterceptor {

    private final MessageAdmission admission;
    private final MessageRecoverer recoverer;

    private FencingListenerAdvice(MessageAdmission admission, MessageRecoverer recoverer) {
        this.admission = Objects.requireNonNull(admission, "admission");
        this.recoverer = recoverer;
    }

    /** Refused messages are rejected without requeue, to the queue's dead-letter exchange. */
    public static FencingListenerAdvice of(MessageAdmission admission) {
        return new FencingListenerAdvice(admission, null);
    }

    /** Refused messages are handed to {@code recoverer} (then acknowledged). */
    public FencingListenerAdvice deadLetteringTo(MessageRecoverer recoverer) {
        return new FencingListenerAdvice(admission, Objects.requireNonNull(recoverer, "recoverer"));
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object[] arguments = invocation.getArguments();
        Object data = arguments.length > 1 ? arguments[1] : null;
        if (!(data instanceof Message message)) {
            throw new AmqpRejectAndDontRequeueException("fenced listeners take one message per delivery; got "
                    + (data == null ? "nothing" : data.getClass().getName()));
        }
        MessageProperties properties = message.getMessageProperties();
        String source = "amqp:" + properties.getConsumerQueue() + "#" + properties.getDeliveryTag();
        Fence fence;
        try {
            fence = admission.admit(headerValue(properties), source);
        } catch (MessageRefusedException refused) {
            deadLetter(message, refused);
            return null;
        }
        try (LeaseContext.Scope scope = LeaseContext.bind(Lease.presented(fence, source))) {
            return invocation.proceed();
        } catch (Throwable failure) {
            // a refusal of the listener's own (MessageIdempotency's) is final as well: dead-lettered, not requeued
            MessageRefusedException refused = MessageRefusedException.in(failure).orElse(null);
            if (refused == null) {
                throw failure;
            }
            deadLetter(message, refused);
            return null;
        }
    }

    private void deadLetter(Message message, MessageRefusedException refused) {
        if (recoverer != null) {
            try {
                recoverer.recover(message, refused);
                return;
            } catch (RuntimeException e) {
                refused.addSuppressed(e);
            }
        }
        throw new AmqpRejectAndDontRequeueException(refused.getMessage(), refused);
    }

    private static String headerValue(MessageProperties properties) {
        Object value = properties.getHeader(MessageHeaders.FENCE);
        if (value == null) {
            return null;
        }
        // RabbitMQ hands string headers over as LongString; anything else is not a fence
        return value.toString();
    }
}
