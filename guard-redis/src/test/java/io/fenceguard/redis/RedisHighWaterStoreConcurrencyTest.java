package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.test.support.RedisProcess;
import io.fenceguard.test.support.TestServers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** The HTTP filter's admission rule on Redis: claim, continue, refuse older, exactly beyond double precision. */
class RedisHighWaterStoreConcurrencyTest {

    private static RedissonClient client;

    @BeforeAll
    static void connect() {
        client = RedisClients.single(TestServers.redis().uri());
    }

    @AfterAll
    static void disconnect() {
        client.shutdown();
    }

    @Test
    void concurrentAdmissionsNeverLowerTheMarkAndEndAtTheHighestToken() throws Exception {
        RedisHighWaterStore store = RedisHighWaterStore.of(RedissonScriptClient.of(client), prefix(), TokenBound.atMost(1));
        ResourceName r = resource();
        List<Long> tokens = new ArrayList<>();
        for (long t = 1; t <= 400; t++) {
            tokens.add(t);
        }
        Collections.shuffle(tokens);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<Admission>> admissions = new ArrayList<>();
        int claimed = 0;
        try {
            for (long token : tokens) {
                admissions.add(pool.submit(() -> store.admit(Fence.of(r, FencingToken.of(token)))));
            }
            for (Future<Admission> f : admissions) {
                Admission a = f.get(30, TimeUnit.SECONDS);
                claimed += a.outcome() == Outcome.CLAIMED ? 1 : 0;
                if (a.outcome() == Outcome.STALE) {
                    assertThat(a.highWater()).isGreaterThan(a.presented().token());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(claimed).isPositive();
        assertThat(value(store.key(r))).isEqualTo("400");
        assertThat(store.admit(Fence.of(r, FencingToken.of(399))).outcome()).isEqualTo(Outcome.STALE);
    }

    @Test
    void keysShareOneHashSlotWithTheFloorAndNeverExpire() {
        String prefix = prefix();
        RedisHighWaterStore store = RedisHighWaterStore.of(RedissonScriptClient.of(client), prefix, TokenBound.atMost(1));
        ResourceName r = ResourceName.of("account:42");
        assertThat(store.key(r)).isEqualTo(prefix + "{fg-hw}:account:42");
        assertThat(store.floorKey()).isEqualTo(prefix + "{fg-hw}:floor");
        assertThat(client.getBucket(store.floorKey(), StringCodec.INSTANCE).remainTimeToLive()).isEqualTo(-1L);
        store.admit(Fence.of(r, FencingToken.of(3)));
        assertThat(client.getBucket(store.key(r), StringCodec.INSTANCE).remainTimeToLive()).isEqualTo(-1L);
        client.getKeys().delete(store.key(r));
    }

    @Test
    void badPrefixesAreRefused() {
        assertThatThrownBy(() -> RedisHighWaterStore.of(RedissonScriptClient.of(client), "fg:{x}:")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisHighWaterStore.of(RedissonScriptClient.of(client), "x".repeat(65))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisHighWaterStore.of(RedissonScriptClient.of(client), null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(RedisHighWaterStore.of(RedissonScriptClient.of(client), "", TokenBound.atMost(1))).isNotNull();
    }

    @Test
    void anUnreachableRedisFailsClosedNamingTheResource() {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient doomed = RedisClients.single(redis.uri());
            try {
                RedisHighWaterStore store = RedisHighWaterStore.of(RedissonScriptClient.of(doomed), prefix(), TokenBound.atMost(1));
                ResourceName r = resource();
                assertThat(store.admit(Fence.of(r, FencingToken.of(1))).outcome()).isEqualTo(Outcome.CLAIMED);
                redis.kill();
                assertThatThrownBy(() -> store.admit(Fence.of(r, FencingToken.of(2))))
                        .isInstanceOf(FenceguardException.class)
                        .hasMessageContaining(r.value())
                        .hasMessageContaining("unavailable");
            } finally {
                doomed.shutdown();
            }
        }
    }

    private static String value(String key) {
        return client.<String>getBucket(key, StringCodec.INSTANCE).get();
    }

    private static String prefix() {
        return "fgtest-hw-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    private static ResourceName resource() {
        return ResourceName.of("account:" + UUID.randomUUID().toString().substring(0, 8));
    }
}
