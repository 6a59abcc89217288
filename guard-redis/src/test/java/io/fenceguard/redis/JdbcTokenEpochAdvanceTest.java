package io.fenceguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.redis.internal.EpochTokens;
import io.fenceguard.test.support.TestServers;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link JdbcTokenEpochSource#advancePast(long)}, the step of a lock store's move to a sequence: the next epoch is
 * above the one given, and a sequence already above it is never moved back. Real PostgreSQL, MariaDB and H2.
 */
class JdbcTokenEpochAdvanceTest {

    static Stream<Arguments> databases() {
        return Stream.of(Arguments.of("postgresql"), Arguments.of("mariadb"), Arguments.of("h2"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void theNextEpochIsAboveTheOneAdvancedPastAndTheSequenceNeverMovesBack(String database) {
        try (ScratchDataSource scratch = database.equals("h2") ? null : ScratchDataSource.on(
                database.equals("postgresql") ? TestServers.postgres() : TestServers.mariadb(), "fg_advance")) {
            DataSource ds = scratch != null ? scratch : h2();
            String sequence = scratch != null && scratch.space().schema() != null
                    ? scratch.space().schema() + ".fenceguard_token_epoch" : JdbcTokenEpochSource.DEFAULT_SEQUENCE;
            JdbcTokenEpochSource source = JdbcTokenEpochSource.of(ds, sequence, Duration.ofSeconds(5));

            long past = source.highestEpoch() + 1_000;
            source.advancePast(past); // the sequence does not exist yet: created, then advanced
            long first = source.nextEpoch();
            assertThat(first).isGreaterThan(past);

            source.advancePast(first + 500);
            long second = source.nextEpoch();
            assertThat(second).isGreaterThan(first + 500);

            source.advancePast(first); // below where it is: nothing moves
            long third = source.nextEpoch();
            assertThat(third).isEqualTo(second + 1);
            assertThat(source.highestEpoch()).isEqualTo(third);

            assertThatThrownBy(() -> source.advancePast(-1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> source.advancePast(EpochTokens.MAX_EPOCH)).isInstanceOf(IllegalArgumentException.class);
            assertThat(source.nextEpoch()).as("bad input changes nothing").isEqualTo(third + 1);
        }
    }

    private static DataSource h2() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:advance-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }
}
