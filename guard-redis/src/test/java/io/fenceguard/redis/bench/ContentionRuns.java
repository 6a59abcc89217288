package io.fenceguard.redis.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The samples of {@link ContentionBenchmark}: each client's waits, and the runs they add up to. */
final class ContentionRuns {

    private ContentionRuns() {
    }

    /** One client's operations in one run. */
    static final class Client {
        long[] waits = new long[1 << 12];
        int size;
        long grantsInTime;
        long timeouts;
        long errors;

        void granted(long waitNanos, long began, long end) {
            if (size == waits.length) {
                waits = Arrays.copyOf(waits, size * 2);
            }
            waits[size++] = waitNanos;
            if (began + waitNanos <= end) {
                grantsInTime++;
            }
        }
    }

    /** All clients of one load and implementation. */
    static final class Run {
        private final double seconds;
        private final List<long[]> waits = new ArrayList<>();
        long grants;
        long timeouts;
        long errors;
        long minGrants = Long.MAX_VALUE;
        long maxGrants;

        Run(double seconds) {
            this.seconds = seconds;
        }

        void add(Client client) {
            waits.add(Arrays.copyOf(client.waits, client.size));
            grants += client.grantsInTime;
            timeouts += client.timeouts;
            errors += client.errors;
            minGrants = Math.min(minGrants, client.grantsInTime);
            maxGrants = Math.max(maxGrants, client.grantsInTime);
        }

        double grantsPerSecond() {
            return grants / seconds;
        }

        long[] sortedWaits() {
            long[] all = waits.stream().flatMapToLong(Arrays::stream).toArray();
            Arrays.sort(all);
            return all;
        }
    }
}
