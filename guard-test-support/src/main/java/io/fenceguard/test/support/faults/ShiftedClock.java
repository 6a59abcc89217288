package io.fenceguard.test.support.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;

/**
 * A wall clock for child processes that a test steps forward and back while they run. Start the
 * process with {@link #environment()} (for a Redis server: {@code RedisProcess.start(clock, ...)});
 * its {@code clock_gettime(CLOCK_REALTIME)}, {@code gettimeofday} and {@code time} then return the
 * kernel's time plus {@link #offset()}, read afresh on every call. Monotonic clocks are not touched,
 * as with a real clock step.
 *
 * <pre>{@code
 * ClockShim.assumeAvailable();                        // skips the test where there is no gcc/Linux
 * try (ShiftedClock clock = ShiftedClock.create();
 *      RedisProcess redis = RedisProcess.start(clock)) {
 *     clock.shiftBy(Duration.ofSeconds(-20));         // Redis TIME goes back 20 s at once
 * }
 * }</pre>
 */
public final class ShiftedClock implements AutoCloseable {

    private static final VarHandle LONG_VIEW = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final Path file;
    private final MappedByteBuffer offsetNanos;
    private long offset;

    private ShiftedClock(Path file, MappedByteBuffer offsetNanos) {
        this.file = file;
        this.offsetNanos = offsetNanos;
    }

    /** A clock at offset zero. Throws when the shim is unavailable: call {@link ClockShim#assumeAvailable()} first. */
    public static ShiftedClock create() {
        ClockShim.library();
        try {
            Path file = Files.createTempFile("fenceguard-clock-offset-", ".bin");
            file.toFile().deleteOnExit();
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, Long.BYTES);
                ShiftedClock clock = new ShiftedClock(file, buffer);
                clock.write(0);
                return clock;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the clock offset file", e);
        }
    }

    /** Steps the clock by {@code step} (negative: back) for every process started with it, at once. */
    public synchronized ShiftedClock shiftBy(Duration step) {
        write(offset + step.toNanos());
        return this;
    }

    /** Sets the offset from the real time. */
    public synchronized ShiftedClock set(Duration offsetFromRealTime) {
        write(offsetFromRealTime.toNanos());
        return this;
    }

    /** How far the processes' wall clock is from the real one now. */
    public synchronized Duration offset() {
        return Duration.ofNanos(offset);
    }

    /** The variables a child process needs: {@code LD_PRELOAD} and the offset file. */
    public Map<String, String> environment() {
        return Map.of("LD_PRELOAD", ClockShim.library().toString(),
                ClockShim.OFFSET_FILE_VARIABLE, file.toString());
    }

    public Path offsetFile() {
        return file;
    }

    private void write(long nanos) {
        LONG_VIEW.setVolatile(offsetNanos, 0, nanos);
        offset = nanos;
    }

    /** Deletes the offset file; processes still running keep their mapping (and the last offset). */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // deleted at exit
        }
    }
}
