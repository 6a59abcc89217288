package io.fenceguard.http.filter.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Concurrent requests with many tokens against several instances, each recorded with when it was
 * sent and answered, and the checks on that log. A request that was sent after another was
 * answered comes after it in admission order; over such pairs the admitted tokens never go down.
 */
public final class AdmissionLog {

    /** One request: token, instance port, when it was sent and answered (nanoTime), status, reported mark. */
    public record Entry(long token, int port, long sent, long answered, int status, Long highWater) {
        boolean admitted() {
            return status == 200;
        }
    }

    private static final Pattern HIGH_WATER = Pattern.compile("\"highWater\":\"(\\d+)\"");

    private final List<Entry> entries;

    private AdmissionLog(List<Entry> entries) {
        this.entries = entries;
    }

    /**
     * {@code threads} clients each send {@code perThread} PUTs to {@code path} on a random one of
     * {@code ports}; tokens drift upwards with the number of requests sent so far, with noise, so
     * that claims, continuations and stale tokens all occur.
     */
    public static AdmissionLog run(List<Integer> ports, String path, ResourceName resource, SigningKeys keys,
            long base, int threads, int perThread) throws Exception {
        ConcurrentLinkedQueue<Entry> log = new ConcurrentLinkedQueue<>();
        AtomicInteger sentSoFar = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < perThread; i++) {
                        long token = base + sentSoFar.getAndIncrement() / 2 + random.nextInt(12);
                        int port = ports.get(random.nextInt(ports.size()));
                        String header = keys.header(new Fence(resource, FencingToken.of(token))).value();
                        long sent = System.nanoTime();
                        Http.Response response = Http.put(port, path, header);
                        long answered = System.nanoTime();
                        Matcher mark = HIGH_WATER.matcher(response.body());
                        log.add(new Entry(token, port, sent, answered, response.status(),
                                mark.find() ? Long.parseLong(mark.group(1)) : null));
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdown();
        }
        return new AdmissionLog(new ArrayList<>(log));
    }

    public List<Entry> entries() {
        return entries;
    }

    public long admittedCount() {
        return entries.stream().filter(Entry::admitted).count();
    }

    public long maxToken() {
        return entries.stream().mapToLong(Entry::token).max().orElseThrow();
    }

    /** Runs every check; returns the number of ordered pairs compared, to show the check had material. */
    public long assertMonotonic() {
        Set<Long> presented = new HashSet<>();
        entries.forEach(e -> presented.add(e.token()));
        for (Entry e : entries) {
            assertThat(e.status()).as("status of %s", e).isIn(200, 409);
            if (!e.admitted()) {
                assertThat(e.highWater()).as("409 names the mark: %s", e).isNotNull();
                assertThat(e.highWater()).as("mark above the stale token: %s", e).isGreaterThan(e.token());
                assertThat(presented).as("mark is a token some request presented: %s", e).contains(e.highWater());
            }
        }
        long pairs = 0;
        for (Entry earlier : entries) {
            if (!earlier.admitted()) {
                continue;
            }
            for (Entry later : entries) {
                if (later.sent() > earlier.answered()) {
                    pairs++;
                    if (later.token() < earlier.token()) {
                        assertThat(later.status()).as("token %d sent after %d was admitted", later.token(),
                                earlier.token()).isEqualTo(409);
                    }
                }
            }
        }
        long max = maxToken();
        assertThat(entries.stream().filter(e -> e.token() == max).allMatch(Entry::admitted))
                .as("every request with the highest token is admitted").isTrue();
        return pairs;
    }
}
