package io.fenceguard.test.support.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The deadline's daemon: its message and status once the deadline passed, not before, and a moved deadline. */
class BenchDeadlineTest {

    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(written, false, StandardCharsets.UTF_8);
    /** The nanoTime and status of the halt. */
    private final CompletableFuture<long[]> halted = new CompletableFuture<>();

    @Test
    void aPassedDeadlineWritesItsMessageAndHaltsWithStatus3() throws Exception {
        long start = System.nanoTime();
        BenchDeadline.after(Duration.ofMillis(100))
                .start(out, this::halt, "%nbench: deadline of %d s passed; stopping.%n", 7);

        long[] halt = halted.get(10, TimeUnit.SECONDS);
        assertThat(halt[1]).isEqualTo(3);
        assertThat(halt[0] - start).isGreaterThanOrEqualTo(Duration.ofMillis(100).toNanos());
        String n = System.lineSeparator();
        assertThat(written.toString(StandardCharsets.UTF_8))
                .isEqualTo(n + "bench: deadline of 7 s passed; stopping." + n);
    }

    @Test
    void aDeadlineMovedLaterHaltsOnlyThen() throws Exception {
        BenchDeadline deadline = BenchDeadline.after(Duration.ofSeconds(1)).start(out, this::halt, "stopped%n");
        long moved = System.nanoTime();
        deadline.moveTo(Duration.ofMillis(1500));

        long[] halt = halted.get(10, TimeUnit.SECONDS);
        assertThat(halt[0] - moved).isGreaterThanOrEqualTo(Duration.ofMillis(1500).toNanos());
        assertThat(halt[1]).isEqualTo(3);
    }

    @Test
    void aDeadlineStartsOnce() {
        BenchDeadline deadline = BenchDeadline.after(Duration.ofHours(1)).start(out, this::halt, "stopped%n");

        assertThatThrownBy(() -> deadline.start(out, this::halt, "stopped%n"))
                .isInstanceOf(IllegalStateException.class);
        assertThat(halted).isNotDone();
    }

    private void halt(int status) {
        halted.complete(new long[] {System.nanoTime(), status});
    }
}
