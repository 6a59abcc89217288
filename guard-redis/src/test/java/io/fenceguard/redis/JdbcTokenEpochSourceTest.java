package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.redis.internal.EpochTokens;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Epochs from the database's own sequence: strictly growing across sources and threads, above the clock floor. */
class JdbcTokenEpochSourceTest {

    static Stream<Arguments> databases() {
        return Stream.of(Arguments.of("postgresql"), Arguments.of("mariadb"));
    }

    private static JdbcEndpoint server(String database) {
        return database.equals("postgresql") ? TestServers.postgres() : TestServers.mariadb();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void epochsGrowAcrossSourcesAndStartAboveTheClockFloor(String database) throws Exception {
        try (ScratchDataSource ds = ScratchDataSource.on(server(database), "fg_epoch")) {
            long clockFloorNow = System.currentTimeMillis() * 1000;
            String sequence = ds.space().schema() != null ? ds.space().schema() + ".fenceguard_token_epoch"
                    : JdbcTokenEpochSource.DEFAULT_SEQUENCE;
            JdbcTokenEpochSource first = JdbcTokenEpochSource.of(ds, sequence, Duration.ofSeconds(5));
            JdbcTokenEpochSource second = JdbcTokenEpochSource.of(ds, sequence, Duration.ofSeconds(5));

            long e1 = first.nextEpoch();
            assertThat(EpochTokens.token(e1, 0)).as("first epoch token above today's clock-floor tokens")
                    .isGreaterThan(clockFloorNow);
            long previous = e1;
            for (int i = 0; i < 20; i++) {
                long next = (i % 2 == 0 ? second : first).nextEpoch();
                assertThat(next).isGreaterThan(previous);
                previous = next;
            }

            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<List<Long>>> futures = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    JdbcTokenEpochSource source = t % 2 == 0 ? first : second;
                    futures.add(pool.submit(() -> {
                        List<Long> got = new ArrayList<>();
                        for (int i = 0; i < 50; i++) {
                            got.add(source.nextEpoch());
                        }
                        return got;
                    }));
                }
                Set<Long> all = new HashSet<>();
                for (Future<List<Long>> f : futures) {
                    List<Long> got = f.get();
                    for (int i = 1; i < got.size(); i++) {
                        assertThat(got.get(i)).isGreaterThan(got.get(i - 1));
                    }
                    all.addAll(got);
                }
                assertThat(all).hasSize(200).allSatisfy(e -> assertThat(e).isGreaterThan(e1));
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /**
     * The first epochs of a fresh database, taken at once by several threads (concurrent first acquires of a new
     * installation, each finding Redis without a counter): each creates the missing sequence, and two
     * {@code CREATE SEQUENCE IF NOT EXISTS} at the same moment collide in PostgreSQL's catalog. Every one gets an
     * epoch, none twice.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void concurrentFirstEpochsOnAMissingSequenceAllSucceed(String database) throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (ScratchDataSource ds = ScratchDataSource.on(server(database), "fg_epoch")) {
            for (int round = 0; round < 5; round++) {
                String name = "fenceguard_token_epoch_" + round;
                String sequence = ds.space().schema() != null ? ds.space().schema() + "." + name : name;
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Long>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    JdbcTokenEpochSource source = JdbcTokenEpochSource.of(ds, sequence, Duration.ofSeconds(5));
                    futures.add(pool.submit(() -> {
                        start.await();
                        return source.nextEpoch();
                    }));
                }
                Set<Long> epochs = new HashSet<>();
                for (Future<Long> f : futures) {
                    epochs.add(f.get());
                }
                assertThat(epochs).as("round %d: one epoch each, none twice", round).hasSize(threads);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void badSequenceNamesAndTimeoutsAreRefused() {
        try (ScratchDataSource ds = ScratchDataSource.on(TestServers.postgres(), "fg_epoch")) {
            assertThatThrownBy(() -> JdbcTokenEpochSource.of(ds, "x; DROP TABLE y", Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sequence");
            assertThatThrownBy(() -> JdbcTokenEpochSource.of(ds, "ok", Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queryTimeout");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void theHighestEpochIsReadWithoutAdvancingAndTheIdentityNamesDatabaseAndSequence(String database) throws Exception {
        try (ScratchDataSource a = ScratchDataSource.on(server(database), "fg_epoch_id");
             ScratchDataSource b = ScratchDataSource.on(server(database), "fg_epoch_id")) {
            JdbcTokenEpochSource first = JdbcTokenEpochSource.of(a, sequenceIn(a), Duration.ofSeconds(5));
            JdbcTokenEpochSource second = JdbcTokenEpochSource.of(b, sequenceIn(b), Duration.ofSeconds(5));
            long clockEpoch = System.currentTimeMillis() * 1000 / EpochTokens.PER_EPOCH;
            assertThat(first.highestEpoch()).as("before the sequence exists").isBetween(clockEpoch, clockEpoch + 1);
            long e1 = first.nextEpoch();
            assertThat(first.highestEpoch()).isEqualTo(e1).isEqualTo(first.highestEpoch());
            long e2 = first.nextEpoch();
            assertThat(first.highestEpoch()).isEqualTo(e2);
            assertThat(first.identity()).startsWith(database).endsWith("fenceguard_token_epoch")
                    .isEqualTo(JdbcTokenEpochSource.of(a, sequenceIn(a), Duration.ofSeconds(1)).identity())
                    .isNotEqualTo(second.identity());
        }
    }

    private static String sequenceIn(ScratchDataSource ds) {
        return ds.space().schema() != null ? ds.space().schema() + ".fenceguard_token_epoch"
                : JdbcTokenEpochSource.DEFAULT_SEQUENCE;
    }
}
