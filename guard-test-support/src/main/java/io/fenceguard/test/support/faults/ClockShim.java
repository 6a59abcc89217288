package io.fenceguard.test.support.faults;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The LD_PRELOAD library behind {@link ShiftedClock}: {@code clock_shim.c} from this package's
 * resources, compiled with the machine's {@code gcc} into a scratch directory once per JVM. It
 * overrides {@code clock_gettime} (wall clocks only), {@code gettimeofday} and {@code time} by calling
 * the kernel directly and adding an offset read from a mapped file, which works on Debian's
 * jemalloc-linked {@code redis-server} where libfaketime hangs at start-up.
 *
 * <p>Where it cannot be built (not Linux, no gcc) {@link #unavailableReason()} says why and
 * {@link #assumeAvailable()} skips the calling test with that reason.
 */
public final class ClockShim {

    /** The variable the shim reads the offset file's path from. */
    public static final String OFFSET_FILE_VARIABLE = "FENCEGUARD_CLOCK_OFFSET_FILE";

    private static final Object lock = new Object();
    private static Path library;
    private static String failure;

    private ClockShim() {
    }

    /** Empty when the shim can be used here; else why not. */
    public static Optional<String> unavailableReason() {
        synchronized (lock) {
            if (library == null && failure == null) {
                build();
            }
            return Optional.ofNullable(failure);
        }
    }

    /** Skips the calling test (a JUnit assumption) with the stated reason when the shim cannot be built. */
    public static void assumeAvailable() {
        Optional<String> reason = unavailableReason();
        Assumptions.assumeTrue(reason.isEmpty(), () -> "clock shim unavailable: " + reason.orElse(""));
    }

    /** The compiled library, for {@code LD_PRELOAD}. */
    public static Path library() {
        Optional<String> reason = unavailableReason();
        if (reason.isPresent()) {
            throw new IllegalStateException("clock shim unavailable: " + reason.get());
        }
        return library;
    }

    private static void build() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            failure = "LD_PRELOAD clock shim needs Linux, this is " + System.getProperty("os.name");
            return;
        }
        Path gcc = findOnPath("gcc");
        if (gcc == null) {
            failure = "no gcc on the PATH to build the LD_PRELOAD clock shim";
            return;
        }
        try {
            Path dir = Files.createTempDirectory("fenceguard-clock-shim-");
            Path source = dir.resolve("clock_shim.c");
            try (InputStream in = ClockShim.class.getResourceAsStream("clock_shim.c")) {
                if (in == null) {
                    failure = "clock_shim.c is missing from the test-support jar";
                    return;
                }
                Files.copy(in, source);
            }
            Path out = dir.resolve("libfenceguard-clock-shim.so");
            Process gccRun = new ProcessBuilder(gcc.toString(), "-shared", "-fPIC", "-O2", "-o", out.toString(),
                    source.toString()).redirectErrorStream(true).start();
            String output = new String(gccRun.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!gccRun.waitFor(60, TimeUnit.SECONDS) || gccRun.exitValue() != 0 || !Files.exists(out)) {
                gccRun.destroyForcibly();
                failure = "gcc could not build the clock shim: " + output.strip();
                return;
            }
            out.toFile().deleteOnExit();
            source.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            library = out;
        } catch (IOException e) {
            failure = "cannot build the clock shim: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "interrupted while building the clock shim";
        }
    }

    private static Path findOnPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
