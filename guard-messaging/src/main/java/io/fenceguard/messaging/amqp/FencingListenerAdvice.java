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
 * <p>A batch listener's batch ({@code consumerBatchEnabled}) is admitted with one call of the store
 * ({@link MessageAdmission#admitAll}: one round trip on the Redis store), in the batch's order: per resource the
 * highest token raises the mark and an older one after it is stale. Refused messages are handed to the recoverer
 * and the listener gets the rest; when all its messages carry one fence, that fence is bound while it runs.
 * Without a recoverer (or when it fails) a refused message can only be rejected with its whole batch, so give
 * batch listeners one.
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
        if (data instanceof java.util.List<?> batch) {
            return invokeBatch(invocation, batch);
        }
        if (!(data instanceof Message message)) {
            throw new AmqpRejectAndDontRequeueException("fenced listeners take one message per delivery; got "
                    + (data == null ? "nothing" : data.getClass().getName()));
        }
        MessageProperties properties = message.getMessageProperties();
        String source = source(properties);
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

    private Object invokeBatch(MethodInvocation invocation, java.util.List<?> batch) throws Throwable {
        java.util.List<Message> messages = new java.util.ArrayList<>(batch.size());
        java.util.List<MessageAdmission.Delivery> deliveries = new java.util.ArrayList<>(batch.size());
        for (Object element : batch) {
            if (!(element instanceof Message message)) {
                throw new AmqpRejectAndDontRequeueException("fenced batch listeners take Messages; got "
                        + (element == null ? "null" : element.getClass().getName()));
            }
            MessageProperties properties = message.getMessageProperties();
            String value = headerValue(properties);
            messages.add(message);
            deliveries.add(new MessageAdmission.Delivery(value == null ? java.util.List.of() : java.util.List.of(value),
                    source(properties)));
        }
        java.util.List<MessageAdmission.Decision> decisions = admission.admitAll(deliveries);
        java.util.List<Message> admitted = new java.util.ArrayList<>(messages.size());
        java.util.Set<Fence> fences = new java.util.HashSet<>();
        for (int i = 0; i < messages.size(); i++) {
            MessageAdmission.Decision decision = decisions.get(i);
            if (decision.admitted()) {
                admitted.add(messages.get(i));
                fences.add(decision.fence());
            } else {
                deadLetter(messages.get(i), decision.refusal());
            }
        }
        if (admitted.isEmpty()) {
            return null;
        }
        Object[] arguments = invocation.getArguments();
        if (invocation instanceof org.springframework.aop.ProxyMethodInvocation proxied) {
            Object[] replaced = arguments.clone();
            replaced[1] = admitted;
            proxied.setArguments(replaced);
        } else {
            arguments[1] = admitted;
        }
        if (fences.size() != 1) {
            return invocation.proceed();
        }
        Fence fence = fences.iterator().next();
        try (LeaseContext.Scope scope = LeaseContext.bind(Lease.presented(fence, source(admitted.get(0)
                .getMessageProperties())))) {
            return invocation.proceed();
        }
    }

    private static String source(MessageProperties properties) {
        return "amqp:" + properties.getConsumerQueue() + "#" + properties.getDeliveryTag();
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
