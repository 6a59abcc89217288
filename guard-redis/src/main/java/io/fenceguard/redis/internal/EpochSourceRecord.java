package io.fenceguard.redis.internal;

import io.fenceguard.redis.RedisScriptClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Which token epoch source a lock store's epochs come from, kept in Redis under {@code <prefix>epoch-source}: the
 * first client on a durable epoch records its source's identity (set only when missing), every client compares its
 * own with it. A client on another counter could install an epoch below one already in use; one on the clock floor
 * could mint tokens below every epoch token after a loss.
 */
public final class EpochSourceRecord {

    /** Records {@code ARGV[1]} when nothing is recorded (an empty ARGV[1] only reads); answers what is recorded. */
    static final String RECORD = """
            local recorded = redis.call('GET', KEYS[1])
            if recorded then
              return {recorded}
            end
            if ARGV[1] == '' then
              return {}
            end
            redis.call('SET', KEYS[1], ARGV[1])
            return {ARGV[1]}
            """;

    private final RedisScriptClient client;
    private final String key;

    public EpochSourceRecord(RedisScriptClient client, String keyPrefix) {
        this.client = client;
        this.key = keyPrefix + "epoch-source";
    }

    public String key() {
        return key;
    }

    /**
     * The identity the store records, after recording {@code identity} when none was ({@code null}: only read);
     * {@code null} when none is recorded.
     */
    public CompletionStage<String> record(String identity, long deadlineNanos) {
        return client.eval(RECORD, RedisScriptClient.Reply.LIST, List.of(key), List.of(identity == null ? "" : identity),
                deadlineNanos).thenApply(reply -> {
                    List<?> list = (List<?>) reply;
                    return list == null || list.isEmpty() || list.get(0) == null ? null : text(list.get(0));
                });
    }

    private static String text(Object value) {
        if (value instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (value instanceof ByteBuffer buffer) {
            return StandardCharsets.UTF_8.decode(buffer.duplicate()).toString();
        }
        return String.valueOf(value);
    }
}
