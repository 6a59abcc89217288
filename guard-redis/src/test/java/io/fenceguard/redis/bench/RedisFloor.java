package io.fenceguard.redis.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The floor under any lock on Redis: the raw round-trip rate of the same server, measured by
 * {@code redis-benchmark -t ping_mbulk -q} with as many connections as the lock benchmark has threads.
 * An acquire + release is two round trips, so a lock can reach at most half of this rate.
 */
final class RedisFloor {

    private static final Pattern RATE = Pattern.compile("([0-9.]+) requests per second");

    private RedisFloor() {
    }

    /** redis-benchmark's PING requests/s by connection count (= thread count); empty when not available. */
    static Map<Integer, Double> rates(String url, int[] threadCounts, int requests) {
        Map<Integer, Double> floor = new TreeMap<>();
        Optional<String> executable = executable();
        if (executable.isEmpty()) {
            System.out.println("floor: redis-benchmark is not on the PATH; skipped");
            return floor;
        }
        for (int connections : threadCounts) {
            pingRate(executable.get(), url, connections, requests).ifPresent(rate -> {
                floor.put(connections, rate);
                System.out.printf("floor: redis-benchmark -t ping_mbulk -n %d -c %d: %.0f requests/s%n",
                        requests, connections, rate);
            });
        }
        return floor;
    }

    /** Where redis-benchmark is on the PATH, if it is. */
    static Optional<String> executable() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            File candidate = new File(dir, "redis-benchmark");
            if (!dir.isEmpty() && candidate.isFile() && candidate.canExecute()) {
                return Optional.of(candidate.getAbsolutePath());
            }
        }
        return Optional.empty();
    }

    /**
     * PING requests per second over {@code connections} connections, {@code requests} in all; empty
     * (with the reason printed) when redis-benchmark is missing or fails.
     */
    static Optional<Double> pingRate(String executable, String url, int connections, int requests) {
        return rate(executable, url, connections, requests, List.of("-t", "ping_mbulk"));
    }

    /**
     * Requests per second of what {@code what} names (redis-benchmark's {@code -t tests}, or {@code -r n} and a
     * command of its own, {@code __rand_int__} in it replaced by random numbers) over {@code connections}
     * connections; empty (with the reason printed) when redis-benchmark fails.
     */
    static Optional<Double> rate(String executable, String url, int connections, int requests, List<String> what) {
        URI uri = URI.create(url);
        List<String> command = new ArrayList<>(List.of(executable, "-h", uri.getHost(),
                "-p", String.valueOf(uri.getPort() > 0 ? uri.getPort() : 6379),
                "-n", String.valueOf(requests), "-c", String.valueOf(connections), "-q"));
        String userInfo = uri.getUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            if (colon > 0) {
                command.addAll(List.of("--user", userInfo.substring(0, colon)));
            }
            command.addAll(List.of("-a", colon >= 0 ? userInfo.substring(colon + 1) : userInfo));
        }
        if ("rediss".equalsIgnoreCase(uri.getScheme())) {
            command.add("--tls");
        }
        // A command of its own comes last: redis-benchmark takes every argument after the options as the command.
        command.addAll(what);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            StringBuilder output = new StringBuilder();
            try (BufferedReader reader = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    output.append(line).append('\n');
                }
            }
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                System.out.println("redis-benchmark did not finish; floor skipped");
                return Optional.empty();
            }
            // -q prints progress with carriage returns (as rps=…); the last "requests per second" is the result.
            Matcher m = RATE.matcher(output.toString().replace('\r', '\n'));
            Double rate = null;
            while (m.find()) {
                rate = Double.parseDouble(m.group(1));
            }
            if (rate == null || process.exitValue() != 0) {
                System.out.println("redis-benchmark gave no rate (exit " + process.exitValue() + "): "
                        + output.toString().strip());
                return Optional.empty();
            }
            return Optional.of(rate);
        } catch (java.io.IOException e) {
            System.out.println("redis-benchmark could not run (" + e.getMessage() + "); floor skipped");
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
