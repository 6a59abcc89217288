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
 *
 * <p>Beside it, in the same Redis Cluster slot ({@code {<prefix>epoch-source}:highest-epoch}), the highest epoch
 * installed in the store, raised before each epoch is installed: what a new source must be advanced past when the
 * store moves to it ({@link #move}). A record without it was written before it was kept: unknown.
 */
public final class EpochSourceRecord {

    /**
     * Records {@code ARGV[1]} (with highest epoch 0) when nothing is recorded (an empty ARGV[1] only reads); answers
     * what is recorded: {identity, highest epoch or false}.
     */
    static final String RECORD = """
            local recorded = redis.call('GET', KEYS[1])
            if recorded then
              return {recorded, redis.call('GET', KEYS[2])}
            end
            if ARGV[1] == '' then
              return {}
            end
            redis.call('SET', KEYS[1], ARGV[1])
            redis.call('SET', KEYS[2], '0')
            return {ARGV[1], '0'}
            """;

    /**
     * Raises the highest epoch to {@code ARGV[2]} when the store records {@code ARGV[1]} (recording it when nothing is,
     * as after a loss); answers the recorded identity, so that a client whose source was replaced installs nothing.
     */
    static final String NOTE_EPOCH = """
            local recorded = redis.call('GET', KEYS[1])
            if not recorded then
              redis.call('SET', KEYS[1], ARGV[1])
              recorded = ARGV[1]
            end
            if recorded ~= ARGV[1] then
              return {recorded}
            end
            local highest = tonumber(redis.call('GET', KEYS[2]) or '0')
            if tonumber(ARGV[2]) > highest then
              redis.call('SET', KEYS[2], ARGV[2])
            end
            return {recorded}
            """;

    /**
     * Replaces the recorded identity {@code ARGV[1]} by {@code ARGV[3]} with highest epoch {@code ARGV[4]}, only when
     * both the identity and the highest epoch ({@code ARGV[2]}) are still what the caller read; answers
     * {1} when moved, else {0, identity, highest}.
     */
    static final String MOVE = """
            local recorded = redis.call('GET', KEYS[1])
            local highest = redis.call('GET', KEYS[2])
            if recorded ~= ARGV[1] or highest ~= ARGV[2] then
              return {0, recorded, highest}
            end
            redis.call('SET', KEYS[1], ARGV[3])
            redis.call('SET', KEYS[2], ARGV[4])
            return {1}
            """;

    /** What the store records: the identity, and the highest epoch installed ({@code null}: not kept yet). */
    public record Recorded(String identity, Long highestEpoch) {
    }

    private final RedisScriptClient client;
    private final String key;
    private final String highestKey;

    public EpochSourceRecord(RedisScriptClient client, String keyPrefix) {
        this.client = client;
        this.key = keyPrefix + "epoch-source";
        // The prefix has no braces: the whole identity key as the hash tag puts both keys in one Cluster slot.
        this.highestKey = "{" + key + "}:highest-epoch";
    }

    public String key() {
        return key;
    }

    /**
     * What the store records, after recording {@code identity} when none was ({@code null}: only read);
     * {@code null} when none is recorded.
     */
    public CompletionStage<Recorded> record(String identity, long deadlineNanos) {
        return eval(RECORD, List.of(identity == null ? "" : identity), deadlineNanos).thenApply(list ->
                list.isEmpty() || list.get(0) == null ? null : new Recorded(text(list.get(0)), number(list, 1)));
    }

    /**
     * Raises the store's highest installed epoch to {@code epoch} when it records {@code identity}; answers the
     * recorded identity (another one: nothing was raised and the epoch must not be installed).
     */
    public CompletionStage<String> noteEpoch(String identity, long epoch, long deadlineNanos) {
        return eval(NOTE_EPOCH, List.of(identity, Long.toString(epoch)), deadlineNanos)
                .thenApply(list -> text(list.get(0)));
    }

    /**
     * Replaces {@code from} (with highest epoch {@code fromHighest}, as read) by {@code to} with highest epoch
     * {@code toHighest}; answers {@code null} when moved, else what the store records now.
     */
    public CompletionStage<Recorded> move(Recorded from, String to, long toHighest, long deadlineNanos) {
        return eval(MOVE, List.of(from.identity(), Long.toString(from.highestEpoch()), to, Long.toString(toHighest)),
                deadlineNanos).thenApply(list -> number(list, 0) == 1 ? null
                : new Recorded(list.size() > 1 && list.get(1) != null ? text(list.get(1)) : null, number(list, 2)));
    }

    private CompletionStage<List<?>> eval(String script, List<String> args, long deadlineNanos) {
        return client.eval(script, RedisScriptClient.Reply.LIST, List.of(key, highestKey), args, deadlineNanos)
                .thenApply(reply -> reply == null ? List.of() : (List<?>) reply);
    }

    /** The element at {@code index} as a number; {@code null} when missing (Redis' false arrives as null or absent). */
    private static Long number(List<?> list, int index) {
        if (list.size() <= index || list.get(index) == null || Boolean.FALSE.equals(list.get(index))) {
            return null;
        }
        Object value = list.get(index);
        return value instanceof Number n ? n.longValue() : Long.parseLong(text(value));
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
