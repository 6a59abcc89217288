package io.fenceguard.test.support.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.LeaseConfig;
import io.fenceguard.core.spi.LeaseProvider;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * A randomized run of semaphore permits and multi-resource leases on a real lock store, with holders that pause
 * past their lease, writing to PostgreSQL rows through row fencing. Each holder is a manager on a
 * {@link PausableLeaseProvider} of its own (a process of its own). In each round a holder takes, at random, a permit
 * of a semaphore fenced per slot, a permit of one fenced per resource, or a multi-resource lease on two or three of
 * four resources named in a random order; it writes to the row of every fence it holds, each with its own token;
 * now and then it freezes (its renewals withheld) for longer than the lease, and on waking writes again with the
 * fences it held, as a holder that does not know it was paused would.
 *
 * <p>What must hold, checked while it runs: no more valid holders of a semaphore than its permits, nor of a resource
 * than one; no write admitted with a token below one already admitted on its row; every write of a woken holder
 * refused when its row has seen a newer token; every acquire back within its wait (no round hangs); and, at the end,
 * the rows' write counts and tokens as the run saw them admitted.
 *
 * <p>Writes are told apart by their SQLState: {@value #STALE_STATE} is a stale token refused by the database,
 * {@value #LOST_STATE} a write refused before it was sent because the lease was lost.
 */
public final class PausedHolderRounds {

    public static final String STALE_STATE = "40F01";
    public static final String LOST_STATE = "0AF01";
    static final int SLOT_PERMITS = 2;
    static final int RESOURCE_PERMITS = 2;

    /**
     * @param stores       a new provider on the store under test, one per holder (closed at the end)
     * @param lease        the holders' lease settings
     * @param raw          the database, unfenced: for the rows and the checks
     * @param fenced       the same database through row fencing of {@code table}
     * @param table        made by {@link #createTable} before {@code fenced} was first used
     * @param holders      threads, each with a manager and a provider of its own
     * @param rounds       rounds per holder
     * @param pauseChance  the share of rounds in which the holder freezes past its lease
     * @param pause        how long a frozen holder sleeps at least: longer than the store keeps a lease unrenewed;
     *                     then up to 2 s more, until the next holder of its row has written
     * @param acquireWait  the wait of every acquire
     */
    public record Settings(Supplier<LeaseProvider> stores, LeaseConfig lease, DataSource raw, DataSource fenced,
                           String table, int holders, int rounds, double pauseChance, Duration pause, Duration acquireWait,
                           long seed) {
        public Settings {
            Objects.requireNonNull(stores, "stores");
            Objects.requireNonNull(lease, "lease");
            Objects.requireNonNull(raw, "raw");
            Objects.requireNonNull(fenced, "fenced");
            Objects.requireNonNull(table, "table");
            Objects.requireNonNull(pause, "pause");
            Objects.requireNonNull(acquireWait, "acquireWait");
        }
    }

    /** What a run did. */
    public record Figures(int rounds, long permitGrants, long resourcePermitGrants, long multiGrants, long timeouts,
                          long unavailable, long pauses, long lostLeases, long writesAdmitted, long staleWritesTried,
                          long staleWritesRefused, long staleWritesAdmitted, long olderPermitsRefused,
                          long lostWritesRefused, long validHoldersRefused, int mostValidSlotPermits,
                          int mostValidResourcePermits, int mostValidPerResource, Duration longestAcquire,
                          Duration elapsed) {

        /**
         * What every run on a store must show: no stale write admitted and no valid holder refused, pauses that
         * cost their leases, grants of every kind, and few timeouts.
         *
         * @throws AssertionError when one of them does not hold
         */
        public void assertSafeAndLive() {
            assertThat(staleWritesAdmitted).isZero();
            assertThat(validHoldersRefused).isZero();
            assertThat(pauses).isPositive();
            assertThat(lostLeases).isGreaterThanOrEqualTo(pauses);
            assertThat(permitGrants).isPositive();
            assertThat(resourcePermitGrants).isPositive();
            assertThat(multiGrants).isPositive();
            // Sorted acquisition leaves no cycle to wait in: a timeout is a holder that lost the race for a hot
            // resource too often (locks are not fair), never a round stuck behind another.
            assertThat(timeouts).as("timeouts").isLessThanOrEqualTo(rounds / 10);
        }

        @Override
        public String toString() {
            return String.format("rounds %d in %d ms: grants %d (permits per slot %d, per resource %d, multi %d), "
                            + "timeouts %d, store unavailable or lost while acquiring %d, pauses %d, lost leases %d, writes admitted %d, stale writes tried %d: "
                            + "refused %d, admitted %d; older permits refused %d, lost-lease writes refused %d, valid "
                            + "holders refused %d; most valid holders at once: %d of %d slot permits, %d of %d resource "
                            + "permits, %d per resource; longest acquire %d ms",
                    rounds, elapsed.toMillis(), permitGrants + resourcePermitGrants + multiGrants, permitGrants,
                    resourcePermitGrants, multiGrants, timeouts, unavailable, pauses, lostLeases, writesAdmitted, staleWritesTried,
                    staleWritesRefused, staleWritesAdmitted, olderPermitsRefused, lostWritesRefused, validHoldersRefused,
                    mostValidSlotPermits, SLOT_PERMITS, mostValidResourcePermits, RESOURCE_PERMITS, mostValidPerResource,
                    longestAcquire.toMillis());
        }
    }

    private PausedHolderRounds() {
    }

    /** The table of the run's rows: one per fenced name (a slot, a semaphore, a resource). */
    public static void createTable(DataSource raw, String table) {
        execute(raw, "CREATE TABLE " + table + " (id VARCHAR(240) PRIMARY KEY, writes INT NOT NULL, current_token BIGINT)");
    }

    /**
     * Runs the rounds and checks what must hold; returns the figures for the test to print and check further.
     *
     * @throws AssertionError when something that must hold did not
     */
    public static Figures run(Settings settings) throws Exception {
        return new PausedHolderRun(settings).run();
    }

    static void execute(DataSource raw, String sql) {
        try (Connection c = raw.getConnection(); Statement statement = c.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed", e);
        }
    }
}
