package io.fenceguard.redis;

import io.fenceguard.redis.redisson.RedissonScriptClient;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.test.support.RedisProcess;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The Redis store forgets its marks (FLUSHALL, restart without persistence) on a redis-server of the
 * test's own: a token older than one admitted before the loss is still refused after it, and holders
 * with newer tokens are admitted again once the allowed skew has passed.
 */
class RedisHighWaterStoreLossTest {

    static final Duration SKEW = Duration.ofMillis(300);
    static final AtomicLong lastToken = new AtomicLong();

    /** A clock token as the Redis lease provider mints it: time in µs, never repeating. */
    static long mint() {
        Instant now = Instant.now();
        long micros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        return lastToken.updateAndGet(last -> Math.max(last + 1, micros));
    }

    static Fence fence(String resource, long token) {
        return new Fence(ResourceName.of(resource), FencingToken.of(token));
    }

    static void sleep(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }

    @Test
    void olderTokensStayRefusedAfterFlushAllAndAfterARestartWithoutPersistence() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = RedisClients.single(redis.uri());
            try {
                RedisHighWaterStore store = RedisHighWaterStore.of(RedissonScriptClient.of(client), "fg:", TokenBound.clockFloor(Clock.systemUTC(), SKEW));
                long older = mint();
                sleep(SKEW.plusMillis(50));
                long newer = mint();
                assertThat(store.admit(fence("account:1", older)).outcome()).as("minted before the store's floor")
                        .isEqualTo(Outcome.STALE);
                assertThat(store.admit(fence("account:1", newer)).outcome()).isEqualTo(Outcome.CLAIMED);
                long between = newer - 1;
                assertThat(store.admit(fence("account:1", between)).outcome()).isEqualTo(Outcome.STALE);

                redis.flushAll();
                Admission afterFlush = store.admit(fence("account:1", between));
                assertThat(afterFlush.outcome()).as("older holder after FLUSHALL").isEqualTo(Outcome.STALE);
                assertThat(afterFlush.highWater().value()).as("the new floor covers every token minted before")
                        .isGreaterThanOrEqualTo(newer);
                assertThat(store.admit(fence("account:1", newer)).outcome()).as("even the last holder takes a new lease")
                        .isEqualTo(Outcome.STALE);
                sleep(SKEW.plusMillis(50));
                long next = mint();
                assertThat(store.admit(fence("account:1", next)).outcome()).isEqualTo(Outcome.CLAIMED);

                redis.restart();
                Admission afterRestart = admitOnceReachable(store, fence("account:1", next - 1));
                assertThat(afterRestart.outcome()).as("older holder after a restart without persistence")
                        .isEqualTo(Outcome.STALE);
                assertThat(afterRestart.highWater().value()).isGreaterThanOrEqualTo(next);
                assertThat(store.floor()).hasValueSatisfying(floor -> assertThat(floor.value()).isGreaterThan(next));
            } finally {
                client.shutdown();
            }
        }
    }

    /** The first answer after Redis is back: until then admissions fail closed with an exception. */
    static Admission admitOnceReachable(RedisHighWaterStore store, Fence fence) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            try {
                return store.admit(fence);
            } catch (RuntimeException e) {
                last = e;
                Thread.sleep(50);
            }
        }
        throw new AssertionError("Redis did not come back", last);
    }

    record Entry(long token, long sent, long answered, Outcome outcome) {
    }

    @Test
    void aFlushInTheMiddleOfConcurrentAdmissionsAdmitsNoTokenOlderThanOneAdmittedBefore() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient client = RedisClients.single(redis.uri());
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                RedisHighWaterStore store = RedisHighWaterStore.of(RedissonScriptClient.of(client), "fg:", TokenBound.clockFloor(Clock.systemUTC(), SKEW));
                sleep(SKEW.plusMillis(50));
                String resource = "account:race";
                ConcurrentLinkedQueue<Entry> log = new ConcurrentLinkedQueue<>();
                ConcurrentLinkedQueue<Long> minted = new ConcurrentLinkedQueue<>();
                AtomicBoolean stop = new AtomicBoolean();
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    boolean replaysOld = t % 2 == 0;
                    workers.add(pool.submit(() -> {
                        while (!stop.get()) {
                            // Half the workers present a token minted earlier, as a paused holder would.
                            Long earlier = replaysOld ? minted.peek() : null;
                            long token = earlier != null && earlier > 0 ? earlier : mint();
                            minted.add(token);
                            if (minted.size() > 50) {
                                minted.poll();
                            }
                            long sent = System.nanoTime();
                            try {
                                Admission a = store.admit(fence(resource, token));
                                log.add(new Entry(token, sent, System.nanoTime(), a.outcome()));
                            } catch (RuntimeException e) {
                                log.add(new Entry(token, sent, System.nanoTime(), null));
                            }
                        }
                        return null;
                    }));
                }
                sleep(Duration.ofMillis(700));
                long flushStart = System.nanoTime();
                redis.flushAll();
                long flushEnd = System.nanoTime();
                sleep(Duration.ofMillis(700).plus(SKEW));
                stop.set(true);
                for (Future<?> w : workers) {
                    w.get(30, TimeUnit.SECONDS);
                }
                long highestBefore = log.stream().filter(e -> e.answered() < flushStart && admitted(e))
                        .mapToLong(Entry::token).max().orElseThrow();
                List<Entry> after = log.stream().filter(e -> e.sent() > flushEnd).toList();
                assertThat(after).filteredOn(RedisHighWaterStoreLossTest::admitted)
                        .as("admitted after the flush").isNotEmpty()
                        .allSatisfy(e -> assertThat(e.token()).as("admitted after the flush").isGreaterThanOrEqualTo(highestBefore));
                assertThat(after).filteredOn(e -> e.token() < highestBefore)
                        .as("older tokens presented after the flush").isNotEmpty()
                        .allSatisfy(e -> assertThat(e.outcome()).isEqualTo(Outcome.STALE));
            } finally {
                pool.shutdownNow();
                client.shutdown();
            }
        }
    }

    static boolean admitted(Entry e) {
        return e.outcome() != null && e.outcome().admitted();
    }
}
