package io.fenceguard.messaging;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.redis.RedisHighWaterStore;
import java.util.List;
import java.util.Map;

/**
 * Six messages on two resources, sent in one go, with tokens above a fresh store's floor: one of them
 * ({@code r1-late}) presents resource 1's older token after its newer one, so it is stale; the other five pass.
 * r2-b repeats r2-a's fence right after it on its resource (the same answer), so the six present five fences in a
 * row per resource.
 *
 * @param base a token above the store's floor; the fences are base + 10 (r1Old), base + 20 (r1New), base + 5 (r2)
 */
public record StaleInBatch(long base, Fence r1Old, Fence r1New, Fence r2) {

    public static final String STALE = "r1-late";
    /** The values that pass, in the order sent. */
    public static final List<String> PASSING = List.of("r1-a", "r2-a", "r1-b", "r2-b", "r1-c");

    /** Fences on resources named after {@code suffix}, above {@code store}'s floor. */
    public static StaleInBatch above(RedisHighWaterStore store, String suffix) {
        long base = store.floor().map(FencingToken::value).orElseThrow() + 1_000;
        return new StaleInBatch(base, Fence.of("account:" + suffix + "-1", Long.toString(base + 10)),
                Fence.of("account:" + suffix + "-1", Long.toString(base + 20)),
                Fence.of("account:" + suffix + "-2", Long.toString(base + 5)));
    }

    /** The six messages' values and fences, in the order to send. */
    public List<Map.Entry<String, Fence>> messages() {
        return List.of(Map.entry("r1-a", r1Old), Map.entry("r2-a", r2), Map.entry("r1-b", r1New),
                Map.entry(STALE, r1Old), Map.entry("r2-b", r2), Map.entry("r1-c", r1New));
    }

    /** The five that pass, each with the fence it runs under. */
    public Map<String, Fence> passing() {
        return Map.of("r1-a", r1Old, "r2-a", r2, "r1-b", r1New, "r2-b", r2, "r1-c", r1New);
    }

    /** The mark the stale message is refused at: resource 1's newer token. */
    public String highWater() {
        return Long.toString(base + 20);
    }
}
