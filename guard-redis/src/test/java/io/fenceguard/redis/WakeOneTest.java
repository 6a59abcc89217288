package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** A release wakes one waiter of a process, not all of them: the others would only retry in vain. */
class WakeOneTest {

    private static final int WAITERS = 12;

    @Test
    void releaseCostsOneAttemptNotOnePerWaiter() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            RedissonClient holderClient = RedisClients.single(redis.uri());
            RedissonClient waiterClient = RedisClients.single(redis.uri());
            RedisLeaseConfig config = RedisClients.fastRedis().build();
            LeaseConfig leaseConfig = LeaseConfig.builder().leaseTime(Duration.ofSeconds(30)).build();
            LeaseManager holder = RedisClients.manager(holderClient, config, leaseConfig);
            LeaseManager waiters = RedisClients.manager(waiterClient, config, leaseConfig);
            Lease held = holder.acquire("hot:1", Duration.ofSeconds(1));

            ExecutorService pool = Executors.newFixedThreadPool(WAITERS);
            CountDownLatch granted = new CountDownLatch(1);
            CountDownLatch releaseSecond = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                futures.add(pool.submit(() -> {
                    try (Lease lease = waiters.acquire("hot:1", Duration.ofSeconds(60))) {
                        granted.countDown();
                        releaseSecond.await();
                    }
                    return null;
                }));
            }
            Thread.sleep(1_500);   // every waiter has tried once and sleeps on the release channel
            redis.call("CONFIG", "RESETSTAT");
            held.close();
            assertThat(granted.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            Thread.sleep(300);     // let any other woken waiter make its attempt
            long scripts = evalCalls(redis);
            // The release, the woken waiter's successful attempt, and at most a stray retry.
            assertThat(scripts).as("script calls after one release with %d waiters", WAITERS).isBetween(2L, 3L);

            releaseSecond.countDown();
            for (Future<?> f : futures) {
                f.get();
            }
            pool.shutdown();
            holder.close();
            waiters.close();
            holderClient.shutdown();
            waiterClient.shutdown();
        }
    }

    private static long evalCalls(RedisProcess redis) {
        return String.valueOf(redis.call("INFO", "commandstats")).lines()
                .filter(l -> l.startsWith("cmdstat_evalsha:") || l.startsWith("cmdstat_eval:"))
                .mapToLong(l -> {
                    String calls = l.substring(l.indexOf("calls=") + 6);
                    return Long.parseLong(calls.substring(0, calls.indexOf(',')));
                }).sum();
    }
}
