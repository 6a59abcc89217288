package io.fenceguard.redis;

import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.EpochTokens;
import io.fenceguard.redis.internal.LeaseKeys;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The highest token {@link RedisLeaseProvider} has minted per resource, read from the resource's counter in Redis
 * without changing it: on a durable epoch the epoch and its grants ({@code epoch × 2^24 + n}), on the clock floor
 * the last token. Empty when Redis no longer has the counter (a loss, a long idle resource): the next grant then
 * takes a new epoch, or the clock, above every token before it. For {@code MarkHealing} on the admission side; give
 * it the client and configuration of the lease provider, so that it reads the same keys.
 */
public final class RedisIssuedTokens implements IssuedTokens {

    // KEYS: seq, eseq. Answers {1, epoch, n} on a durable epoch, {0, token, 0} on the clock floor, {} without one.
    static final String HIGHEST = """
            local e = redis.call('HGET', KEYS[2], 'e')
            if e then
              return {1, tonumber(e), tonumber(redis.call('HGET', KEYS[2], 'n') or '0')}
            end
            local s = redis.call('GET', KEYS[1])
            if s then
              return {0, tonumber(s), 0}
            end
            return {}
            """;

    private final RedisScriptClient client;
    private final String keyPrefix;

    private RedisIssuedTokens(RedisScriptClient client, String keyPrefix) {
        this.client = Objects.requireNonNull(client, "client");
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
    }

    /** The tokens minted by a {@link RedisLeaseProvider} on {@code client} with {@code config}. */
    public static RedisIssuedTokens of(RedisScriptClient client, RedisLeaseConfig config) {
        return new RedisIssuedTokens(client, config.keyPrefix());
    }

    @Override
    public Optional<FencingToken> highestIssued(ResourceName resource) {
        LeaseKeys keys = LeaseKeys.of(keyPrefix, resource);
        List<?> answer = (List<?>) RedisHighWaterStore.call(client, HIGHEST, RedisScriptClient.Reply.LIST,
                List.of(keys.seq(), keys.epochSeq()), List.of());
        if (answer.isEmpty()) {
            return Optional.empty();
        }
        long first = number(answer.get(1));
        long token = number(answer.get(0)) == 1 ? EpochTokens.token(first, number(answer.get(2))) : first;
        return Optional.of(FencingToken.of(token));
    }

    private static long number(Object value) {
        return value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value));
    }

    @Override
    public String toString() {
        return "RedisIssuedTokens[" + keyPrefix + "]";
    }
}
