package io.fenceguard.proof;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * How long and how hard one run goes. Clients are split between two worker JVMs and this JVM:
 * each worker runs a quarter of them (at least one), this JVM the rest (at least one).
 */
public record ProofSettings(Duration duration, int clients, long seed, long leaseMillis, Path outDir) {

    public static final int WORKER_JVMS = 2;

    public ProofSettings {
        if (clients < WORKER_JVMS + 1) {
            throw new IllegalArgumentException("at least " + (WORKER_JVMS + 1) + " clients, got " + clients);
        }
    }

    /** From {@code -Dproof.duration=10m -Dproof.clients=8 -Dproof.seed=42 -Dproof.lease=1500ms}. */
    public static ProofSettings fromSystemProperties(Duration defaultDuration, int defaultClients) {
        return new ProofSettings(
                parse(System.getProperty("proof.duration"), defaultDuration),
                Integer.parseInt(System.getProperty("proof.clients", String.valueOf(defaultClients))),
                Long.parseLong(System.getProperty("proof.seed", "20240611")),
                parse(System.getProperty("proof.lease"), Duration.ofMillis(1_500)).toMillis(),
                Path.of(System.getProperty("proof.out", "target/proof")));
    }

    public ProofSettings withDuration(Duration other) {
        return new ProofSettings(other, clients, seed, leaseMillis, outDir);
    }

    public int threadsPerWorker() {
        return Math.max(1, clients / 4);
    }

    public int inProcessThreads() {
        return clients - WORKER_JVMS * threadsPerWorker();
    }

    /** {@code 90}, {@code 90s}, {@code 1500ms}, {@code 10m}; seconds when there is no unit. */
    static Duration parse(String text, Duration fallback) {
        if (text == null || text.isBlank()) {
            return fallback;
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
        }
        if (t.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
        }
        if (t.endsWith("h")) {
            return Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1)));
        }
        return Duration.ofSeconds(Long.parseLong(t.endsWith("s") ? t.substring(0, t.length() - 1) : t));
    }
}
