package io.fenceguard.messaging;

/**
 * Names of the message headers fenceguard reads and writes, the same on Kafka and RabbitMQ.
 *
 * <p>The fence travels in one header whose value is the HTTP header's compact form
 * ({@code v1;r=<resource>;t=<token>}, see {@link io.fenceguard.admission.FenceHeader}), so a fence relayed
 * from an HTTP request to a message and on to another service keeps one spelling. A dead-lettered
 * message carries why it was refused in the {@code fenceguard-refusal*} headers.
 */
public final class MessageHeaders {

    /** The fence of the lease the message was sent under: {@code v1;r=account:42;t=1745000000000001}. */
    public static final String FENCE = "Fencing-Token";
    /**
     * The message's unique id, by which a consumer applies it once however often it is delivered (the outbox's
     * relay sends at least once). The same name as the HTTP {@code Idempotency-Key} header.
     */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    /** Why a consumer refused the message: one of {@link MessageRefusedException.Reason}. */
    public static final String REFUSAL = "fenceguard-refusal";
    /** The refusal in words: resource, token and the high-water mark that made it stale. */
    public static final String REFUSAL_MESSAGE = "fenceguard-refusal-message";
    /** The resource's high-water token when the message was refused as stale. */
    public static final String HIGH_WATER = "fenceguard-high-water";

    private MessageHeaders() {
    }
}
