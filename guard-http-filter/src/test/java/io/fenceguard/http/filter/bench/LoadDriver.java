package io.fenceguard.http.filter.bench;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends one request in a loop from several threads for a while and records each latency. A
 * transient client error (an I/O error such as the JDK client's {@code HTTP/1.1 header parser
 * received no bytes} on a connection the server has just closed, or a request timeout) is counted
 * by kind and the request tried again, up to {@code attempts} times; only a request that fails every
 * attempt counts as failed. An answer other than 200 is no transient error: it stops the benchmark.
 */
final class LoadDriver implements AutoCloseable {

    /** Latencies of the requests answered 200, in nanoseconds, and the requests that failed every attempt. */
    record Samples(long[] latencies, long failed) {
    }

    private final HttpClient client;
    private final int threads;
    private final int attempts;
    private final Duration requestTimeout;
    private final ExecutorService pool;
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final LongAdder failed = new LongAdder();
    private final LongAdder answered = new LongAdder();

    LoadDriver(int threads, int attempts, Duration requestTimeout) {
        this.threads = threads;
        this.attempts = attempts;
        this.requestTimeout = requestTimeout;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(requestTimeout).build();
        // Daemon threads: a stuck request can never keep the JVM alive.
        this.pool = Executors.newFixedThreadPool(threads, task -> {
            Thread thread = new Thread(task, "bench-client");
            thread.setDaemon(true);
            return thread;
        });
    }

    Duration requestTimeout() {
        return requestTimeout;
    }

    /** Drives {@code request} from every thread for {@code duration}. */
    Samples drive(HttpRequest request, Duration duration) throws InterruptedException {
        HttpRequest timed = HttpRequest.newBuilder(request, (name, value) -> true).timeout(requestTimeout).build();
        return drive(() -> timed, duration);
    }

    /** Drives a new request from {@code requests} (such as one signed anew) for each send, from every thread. */
    Samples drive(java.util.function.Supplier<HttpRequest> requests, Duration duration) throws InterruptedException {
        long end = System.nanoTime() + duration.toNanos();
        List<Callable<long[]>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(() -> loop(requests, end));
        }
        // Each loop stops by itself at the end; a request in flight then needs at most its attempts.
        long slack = requestTimeout.multipliedBy(attempts).plusSeconds(10).toNanos();
        List<Future<long[]>> futures = pool.invokeAll(workers, duration.toNanos() + slack, TimeUnit.NANOSECONDS);
        long failedBefore = failed.sum();
        List<long[]> parts = new ArrayList<>();
        for (Future<long[]> future : futures) {
            if (future.isCancelled()) {
                throw new IllegalStateException("a client thread did not finish within " + duration.plusNanos(slack));
            }
            try {
                parts.add(future.get());
            } catch (ExecutionException e) {
                throw new IllegalStateException("a client thread failed: " + e.getCause().getMessage(), e.getCause());
            }
        }
        int count = parts.stream().mapToInt(p -> (int) p[0]).sum();
        long[] all = new long[count];
        int at = 0;
        for (long[] part : parts) {
            System.arraycopy(part, 1, all, at, (int) part[0]);
            at += (int) part[0];
        }
        return new Samples(all, failed.sum() - failedBefore);
    }

    private long[] loop(java.util.function.Supplier<HttpRequest> requests, long end) throws InterruptedException {
        long[] samples = new long[1 << 18];
        int n = 0;
        while (System.nanoTime() < end && n < samples.length - 1) {
            long start = System.nanoTime();
            if (send(requests)) {
                samples[++n] = System.nanoTime() - start;
            }
        }
        samples[0] = n;
        return Arrays.copyOf(samples, n + 1);
    }

    /** Whether the request was answered 200 within its attempts. */
    private boolean send(java.util.function.Supplier<HttpRequest> requests) throws InterruptedException {
        for (int attempt = 1; attempt <= attempts; attempt++) {
            // A retry is a new request: a request-signed one must not reuse its nonce.
            HttpRequest request = requests.get();
            HttpResponse<String> response;
            try {
                response = client.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                errors.computeIfAbsent(e.getClass().getSimpleName() + ": " + e.getMessage(), k -> new LongAdder())
                        .increment();
                continue;
            }
            if (response.statusCode() != 200) {
                throw new IllegalStateException(request.method() + " " + request.uri() + " answered "
                        + response.statusCode() + ": " + response.body());
            }
            answered.increment();
            return true;
        }
        failed.increment();
        return false;
    }

    /**
     * Whether a thread is this driver's (its senders, the JDK client's selector and workers): the CPU the load itself
     * costs, left out of the application's CPU per request.
     */
    static boolean clientThread(String name) {
        return name.startsWith("bench-client") || name.startsWith("HttpClient-");
    }

    /**
     * Sends requests at a fixed arrival rate ({@code perSecond}, open loop) for {@code duration} and answers each one's
     * latency from the moment it was due, not from when a sender got to it: a slow answer delays the sends behind it
     * and that delay counts (no coordinated omission). A request still not sent when the duration has passed counts
     * with the time it had waited by then.
     */
    long[] driveAt(java.util.function.Supplier<HttpRequest> requests, double perSecond, Duration duration)
            throws InterruptedException {
        long interval = (long) (1e9 / perSecond);
        long start = System.nanoTime() + 10_000_000L;
        long end = start + duration.toNanos();
        java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong();
        List<Callable<long[]>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(() -> {
                long[] samples = new long[1 << 16];
                int n = 0;
                for (long k; ; ) {
                    k = next.getAndIncrement();
                    long due = start + k * interval;
                    if (due >= end) {
                        break;
                    }
                    for (long wait; (wait = due - System.nanoTime()) > 0; ) {
                        java.util.concurrent.locks.LockSupport.parkNanos(wait);
                    }
                    long now = System.nanoTime();
                    boolean sent = now <= end + requestTimeout.toNanos() && send(requests);
                    if (n == samples.length) {
                        samples = Arrays.copyOf(samples, 2 * n);
                    }
                    samples[n++] = sent ? System.nanoTime() - due : now - due;
                }
                return Arrays.copyOf(samples, n);
            });
        }
        long slack = requestTimeout.multipliedBy(attempts + 1L).plusSeconds(10).toNanos();
        List<Future<long[]>> futures = pool.invokeAll(workers, duration.toNanos() + slack, TimeUnit.NANOSECONDS);
        List<long[]> parts = new ArrayList<>();
        for (Future<long[]> future : futures) {
            if (future.isCancelled()) {
                throw new IllegalStateException("an open-loop sender did not finish within " + duration.plusNanos(slack));
            }
            try {
                parts.add(future.get());
            } catch (ExecutionException e) {
                throw new IllegalStateException("an open-loop sender failed: " + e.getCause().getMessage(), e.getCause());
            }
        }
        return parts.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    }

    /** Transient errors by kind. */
    Map<String, Long> errors() {
        Map<String, Long> sorted = new TreeMap<>();
        errors.forEach((kind, count) -> sorted.put(kind, count.sum()));
        return sorted;
    }

    long errorCount() {
        return errors.values().stream().mapToLong(LongAdder::sum).sum();
    }

    long failedCount() {
        return failed.sum();
    }

    long answeredCount() {
        return answered.sum();
    }

    @Override
    public void close() {
        // The JDK client's own threads are daemons; it has no close() on Java 17.
        pool.shutdownNow();
    }
}
