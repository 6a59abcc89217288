package io.fenceguard.redis;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.Admission;
import io.fenceguard.http.HighWaterStore;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * High-water marks in Redis, one string key per resource ({@code <prefix>{<resource>}:hw}), compared
 * and updated in one Lua script. The keys never expire: forgetting a mark would admit stale tokens.
 */
public final class RedisHighWaterStore implements HighWaterStore {

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9:._-]{0,64}");

    // Tokens are compared as canonical decimal text (shorter is smaller, then lexicographic), since Lua
    // numbers are doubles and lose precision above 2^53. Returns {1|0|-1, high-water}.
    private static final String ADMIT = """
            local current = redis.call('GET', KEYS[1])
            local token = ARGV[1]
            if current and #current == #token and current == token then
              return {0, current}
            end
            if current and (#current > #token or (#current == #token and current > token)) then
              return {-1, current}
            end
            redis.call('SET', KEYS[1], token)
            return {1, token}
            """;

    private final RScript script;
    private final String prefix;

    private RedisHighWaterStore(RedissonClient redisson, String prefix) {
        this.script = Objects.requireNonNull(redisson, "redisson").getScript(StringCodec.INSTANCE);
        this.prefix = prefix;
    }

    /** Keys start with {@code prefix}, such as {@code fg:http:} (0 to 64 characters from {@code A-Z a-z 0-9 : . _ -}). */
    public static RedisHighWaterStore of(RedissonClient redisson, String prefix) {
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("a key prefix is 0 to 64 characters from A-Z a-z 0-9 : . _ -");
        }
        return new RedisHighWaterStore(redisson, prefix);
    }

    /** The key holding {@code resource}'s mark; the braces keep it in the resource's Cluster slot. */
    public String key(ResourceName resource) {
        return prefix + "{" + resource.value() + "}:hw";
    }

    @Override
    public Admission admit(Fence presented) {
        String key = key(presented.resource());
        List<Object> reply;
        try {
            reply = script.eval(key, RScript.Mode.READ_WRITE, ADMIT, RScript.ReturnType.LIST,
                    List.of(key), Long.toString(presented.token().value()));
        } catch (RuntimeException e) {
            throw new FenceguardException("high-water store unavailable for '" + presented.resource() + "': "
                    + e.getMessage(), presented.resource(), presented.token(), e);
        }
        long verdict = ((Number) reply.get(0)).longValue();
        FencingToken highWater = FencingToken.parse(String.valueOf(reply.get(1)));
        if (verdict > 0) {
            return Admission.claimed(presented);
        }
        return Admission.of(presented, highWater);
    }

    @Override
    public String toString() {
        return "RedisHighWaterStore[" + prefix + "]";
    }
}
