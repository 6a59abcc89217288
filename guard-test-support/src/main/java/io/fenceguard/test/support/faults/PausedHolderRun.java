package io.fenceguard.test.support.faults;

import static io.fenceguard.test.support.faults.PausedHolderRounds.LOST_STATE;
import static io.fenceguard.test.support.faults.PausedHolderRounds.RESOURCE_PERMITS;
import static io.fenceguard.test.support.faults.PausedHolderRounds.SLOT_PERMITS;
import static io.fenceguard.test.support.faults.PausedHolderRounds.STALE_STATE;
import static io.fenceguard.test.support.faults.PausedHolderRounds.execute;
import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseLostException;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.LeaseUnavailableException;
import io.fenceguard.core.MultiLease;
import io.fenceguard.core.PermitFencing;
import io.fenceguard.core.ResourceName;
import io.fenceguard.test.support.faults.PausedHolderRounds.Figures;
import io.fenceguard.test.support.faults.PausedHolderRounds.Settings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One run of {@link PausedHolderRounds}: the holders' rounds, what they saw admitted and refused, and the checks
 * of what must hold, while it runs and on the rows at the end.
 */
final class PausedHolderRun {

    private static final List<String> SHARED = List.of("a", "b", "c", "d");
    /** What an acquire may take beyond its wait before it counts as hung. */
    private static final Duration HANG_SLACK = Duration.ofSeconds(3);
    /** How much longer a paused holder may sleep for its row's next holder to write. */
    private static final Duration NEWER_WRITE_WAIT = Duration.ofSeconds(2);

    final Settings s;
    final String base = "rounds-" + UUID.randomUUID().toString().substring(0, 8);
    final ResourceName slotSemaphore = ResourceName.of(base + ":slots");
    final ResourceName resourceSemaphore = ResourceName.of(base + ":pool");
    final List<String> shared = SHARED.stream().map(r -> base + ":" + r).toList();
    /** Each row's greatest token admitted so far, as this run saw it. */
    final Map<String, AtomicLong> admitted = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> writesPerRow = new ConcurrentHashMap<>();
    /** The leases held now, per semaphore or resource: the valid ones among them are counted. */
    final Map<String, Set<Lease>> holding = new ConcurrentHashMap<>();
    final AtomicLong permitGrants = new AtomicLong();
    final AtomicLong resourcePermitGrants = new AtomicLong();
    final AtomicLong multiGrants = new AtomicLong();
    final AtomicLong timeouts = new AtomicLong();
    final AtomicLong unavailable = new AtomicLong();
    final AtomicLong pauses = new AtomicLong();
    final AtomicLong lost = new AtomicLong();
    final AtomicLong writes = new AtomicLong();
    final AtomicLong staleTried = new AtomicLong();
    final AtomicLong staleRefused = new AtomicLong();
    final AtomicLong staleAdmitted = new AtomicLong();
    final AtomicLong olderRefused = new AtomicLong();
    final AtomicLong lostRefused = new AtomicLong();
    final AtomicLong validRefused = new AtomicLong();
    final AtomicInteger mostSlot = new AtomicInteger();
    final AtomicInteger mostPool = new AtomicInteger();
    final AtomicInteger mostShared = new AtomicInteger();
    final AtomicLong longestAcquireNanos = new AtomicLong();
    final List<String> violations = Collections.synchronizedList(new ArrayList<>());

    PausedHolderRun(Settings s) {
        this.s = s;
    }

    Figures run() throws Exception {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < SLOT_PERMITS; i++) {
            rows.add(slotSemaphore + "#" + i);
        }
        rows.add(resourceSemaphore.value());
        rows.addAll(shared);
        for (String row : rows) {
            execute(s.raw(), "INSERT INTO " + s.table() + " (id, writes) VALUES ('" + row + "', 0)");
            admitted.put(row, new AtomicLong());
            writesPerRow.put(row, new AtomicLong());
        }
        long start = System.nanoTime();
        ExecutorService threads = Executors.newFixedThreadPool(s.holders());
        List<Future<?>> done = new ArrayList<>();
        try {
            for (int h = 0; h < s.holders(); h++) {
                long seed = s.seed() * 31 + h;
                done.add(threads.submit(() -> {
                    holder(new Random(seed));
                    return null;
                }));
            }
            long budget = (s.pause().toMillis() + s.acquireWait().toMillis() + 5_000) * (long) s.rounds();
            for (Future<?> f : done) {
                f.get(budget, TimeUnit.MILLISECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        Figures figures = new Figures(s.holders() * s.rounds(), permitGrants.get(), resourcePermitGrants.get(),
                multiGrants.get(), timeouts.get(), unavailable.get(), pauses.get(), lost.get(), writes.get(), staleTried.get(),
                staleRefused.get(), staleAdmitted.get(), olderRefused.get(), lostRefused.get(), validRefused.get(),
                mostSlot.get(), mostPool.get(), mostShared.get(), Duration.ofNanos(longestAcquireNanos.get()), elapsed);
        assertThat(violations).as("violations in " + figures).isEmpty();
        checkRows(figures);
        return figures;
    }

    /** The database holds what the run saw admitted: every admitted write counted, each row's greatest token. */
    void checkRows(Figures figures) throws SQLException {
        try (Connection c = s.raw().getConnection();
             ResultSet r = c.createStatement().executeQuery("SELECT id, writes, current_token FROM " + s.table())) {
            long total = 0;
            while (r.next()) {
                String row = r.getString(1);
                if (!admitted.containsKey(row)) {
                    continue;
                }
                total += r.getLong(2);
                assertThat(r.getLong(2)).as("writes on " + row).isEqualTo(writesPerRow.get(row).get());
                assertThat(r.getLong(3)).as("token of " + row).isEqualTo(admitted.get(row).get());
            }
            assertThat(total).as("writes admitted in " + figures).isEqualTo(writes.get());
        }
    }

    void holder(Random random) throws Exception {
        PausableLeaseProvider store = PausableLeaseProvider.wrap(s.stores().get());
        try (store; LeaseManager manager = LeaseManager.of(store, s.lease())) {
            for (int round = 0; round < s.rounds(); round++) {
                int kind = random.nextInt(10);
                boolean pause = random.nextDouble() < s.pauseChance();
                if (kind < 4) {
                    Lease permit = acquire(() -> manager.acquirePermit(slotSemaphore, SLOT_PERMITS,
                            PermitFencing.PER_SLOT, s.acquireWait()));
                    if (permit != null) {
                        permitGrants.incrementAndGet();
                        hold(store, List.of(permit), slotSemaphore.value(), SLOT_PERMITS, mostSlot, false, pause, random);
                    }
                } else if (kind < 6) {
                    Lease permit = acquire(() -> manager.acquirePermit(resourceSemaphore, RESOURCE_PERMITS,
                            PermitFencing.PER_RESOURCE, s.acquireWait()));
                    if (permit != null) {
                        resourcePermitGrants.incrementAndGet();
                        hold(store, List.of(permit), resourceSemaphore.value(), RESOURCE_PERMITS, mostPool, true, pause, random);
                    }
                } else {
                    List<String> wanted = new ArrayList<>(shared);
                    Collections.shuffle(wanted, random);
                    List<String> some = wanted.subList(0, 2 + random.nextInt(2));
                    MultiLease multi = acquire(() -> manager.acquireAll(some, s.acquireWait()));
                    if (multi != null) {
                        multiGrants.incrementAndGet();
                        try (multi) {
                            hold(store, multi.leases(), null, 1, mostShared, false, pause, random);
                        }
                    }
                }
            }
        }
    }

    /** An acquire, timed: a timeout is counted, an acquire that outlasts its wait by far is a hang. */
    <T> T acquire(Supplier<T> call) {
        long start = System.nanoTime();
        try {
            return call.get();
        } catch (LeaseTimeoutException e) {
            timeouts.incrementAndGet();
            return null;
        } catch (LeaseUnavailableException | LeaseLostException e) {
            // The store did not answer in time (a loaded machine), or a part of a multi-resource lease was lost
            // before the last was obtained and all were given back: not a safety matter, the round is skipped.
            unavailable.incrementAndGet();
            return null;
        } finally {
            long took = System.nanoTime() - start;
            longestAcquireNanos.accumulateAndGet(took, Math::max);
            if (took > s.acquireWait().plus(HANG_SLACK).toNanos()) {
                violations.add("an acquire took " + took / 1_000_000 + " ms with a wait of " + s.acquireWait().toMillis() + " ms");
            }
        }
    }

    /**
     * Holds {@code leases} for a round: counts the valid holders, writes with each lease's own token, and, when
     * {@code pause}, freezes past the lease and writes again with the fences it held.
     *
     * @param group the semaphore the leases are permits of; null for the parts of a multi-resource lease
     */
    void hold(PausableLeaseProvider store, List<Lease> leases, String group, int cap, AtomicInteger most,
              boolean newestWins, boolean pause, Random random) throws Exception {
        List<String> keys = new ArrayList<>();
        for (Lease lease : leases) {
            String key = group != null ? group : lease.resource().value();
            keys.add(key);
            Set<Lease> held = holding.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet());
            held.add(lease);
            int valid = (int) held.stream().filter(Lease::isValid).count();
            most.accumulateAndGet(valid, Math::max);
            if (valid > cap) {
                violations.add(valid + " valid holders of " + key + " at once, at most " + cap + " allowed: " + held);
            }
        }
        try {
            for (Lease lease : leases) {
                write(lease, newestWins);
            }
            Thread.sleep(random.nextInt(15));
            if (pause) {
                pauses.incrementAndGet();
                store.pauseAllRenewals(s.pause().plusSeconds(5));
                Thread.sleep(s.pause().toMillis());
                for (Lease lease : leases) {
                    if (lease.lossReason().isPresent() || !lease.isValid()) {
                        lost.incrementAndGet();
                    } else {
                        violations.add(lease + " is still valid after a pause of " + s.pause().toMillis() + " ms");
                    }
                }
                // Woken, the holder writes as if nothing happened: with the fences it held, not knowing they are stale.
                for (Lease lease : leases) {
                    writeWoken(lease.fence());
                }
                store.resumeRenewals();
            }
        } finally {
            for (int i = 0; i < leases.size(); i++) {
                holding.get(keys.get(i)).remove(leases.get(i));
            }
            if (group != null) {
                leases.forEach(Lease::close);
            }
        }
    }

    /** A write by a holder with {@code lease}: admitted, or refused for a reason the holder's state explains. */
    void write(Lease lease, boolean newestWins) {
        String row = lease.resource().value();
        long seenBefore = admitted.get(row).get();
        try (LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            update(row);
            admittedWrite(row, lease.token().value(), seenBefore);
        } catch (SQLException e) {
            if (LOST_STATE.equals(e.getSQLState())) {
                lostRefused.incrementAndGet();
            } else if (STALE_STATE.equals(e.getSQLState())) {
                if (newestWins) {
                    olderRefused.incrementAndGet(); // a newer permit of the semaphore has written
                } else if (lease.isValid()) {
                    validRefused.incrementAndGet();
                    violations.add("the write of " + lease + " was refused as stale while it is valid: " + e.getMessage());
                }
            } else {
                violations.add("the write of " + lease + " failed: " + e);
            }
        }
    }

    /** A woken holder's write with a fence it held: it must be refused when its row has seen a newer token. */
    void writeWoken(Fence fence) {
        String row = fence.resource().value();
        long seenBefore = admitted.get(row).get();
        long inDatabase;
        try {
            // The pause goes on until the row's next holder has written, or for a while at most: the holder then
            // wakes to a row that has moved on, the case the token check is for.
            long until = System.nanoTime() + NEWER_WRITE_WAIT.toNanos();
            while ((inDatabase = currentToken(row)) <= fence.token().value() && System.nanoTime() - until < 0) {
                Thread.sleep(20);
            }
        } catch (SQLException e) {
            violations.add("reading " + row + " failed: " + e);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        boolean stale = inDatabase > fence.token().value();
        if (stale) {
            staleTried.incrementAndGet();
        }
        try (Lease woken = Lease.presented(fence, "woken-holder"); LeaseContext.Scope scope = LeaseContext.bind(woken)) {
            update(row);
            if (stale) {
                staleAdmitted.incrementAndGet();
                violations.add("a stale write with " + fence + " was admitted over token " + inDatabase);
            }
            admittedWrite(row, fence.token().value(), seenBefore);
        } catch (SQLException e) {
            if (!STALE_STATE.equals(e.getSQLState())) {
                violations.add("the woken write with " + fence + " failed: " + e);
            } else if (stale) {
                staleRefused.incrementAndGet();
            }
        }
    }

    void admittedWrite(String row, long token, long seenBefore) {
        writes.incrementAndGet();
        writesPerRow.get(row).incrementAndGet();
        if (token < seenBefore) {
            staleAdmitted.incrementAndGet();
            violations.add("a write on " + row + " with token " + token + " was admitted after token " + seenBefore);
        }
        admitted.get(row).accumulateAndGet(token, Math::max);
    }

    void update(String row) throws SQLException {
        try (Connection c = s.fenced().getConnection();
             PreparedStatement update = c.prepareStatement("UPDATE " + s.table() + " SET writes = writes + 1 WHERE id = ?")) {
            update.setString(1, row);
            int n = update.executeUpdate();
            if (n != 1) {
                throw new SQLException("updated " + n + " rows of " + row);
            }
        }
    }

    long currentToken(String row) throws SQLException {
        try (Connection c = s.raw().getConnection();
             PreparedStatement read = c.prepareStatement("SELECT current_token FROM " + s.table() + " WHERE id = ?")) {
            read.setString(1, row);
            try (ResultSet r = read.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }
}
