package io.fenceguard.model;

import static org.assertj.core.api.Assertions.assertThat;

import edu.mit.csail.sdg.alloy4.A4Reporter;
import edu.mit.csail.sdg.ast.Command;
import edu.mit.csail.sdg.parser.CompModule;
import edu.mit.csail.sdg.parser.CompUtil;
import edu.mit.csail.sdg.translator.A4Options;
import edu.mit.csail.sdg.translator.A4Solution;
import edu.mit.csail.sdg.translator.TranslateAlloyToKodkod;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * When a mark may be dropped ({@code marks.als}): below the floor that the resource enforces for the lock store (every
 * lease that carried a token below it has expired), dropping it admits nothing stale; dropped earlier (the control),
 * a paused holder's stale write is admitted.
 */
class MarkDroppingModelTest {

    private static final String RESOURCE = "/io/fenceguard/model/marks.als";
    private static CompModule world;

    @BeforeAll
    static void load() throws IOException {
        try (InputStream in = Objects.requireNonNull(MarkDroppingModelTest.class.getResourceAsStream(RESOURCE), RESOURCE)) {
            world = CompUtil.parseEverything_fromString(new A4Reporter(),
                    new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    static A4Solution run(String label) {
        Command command = world.getAllCommands().stream().filter(c -> c.label.equals(label)).findFirst().orElseThrow();
        A4Options options = new A4Options();
        options.solver = FencingModel.solver();
        options.noOverflow = true;
        options.skolemDepth = 1;
        long start = System.nanoTime();
        A4Solution solution = TranslateAlloyToKodkod.execute_command(A4Reporter.NOP, world.getAllReachableSigs(),
                command, options);
        System.out.printf("%s %s: %s in %d ms%n", command.check ? "check" : "run", label,
                solution.satisfiable() ? "instance" : "no instance", (System.nanoTime() - start) / 1_000_000);
        return solution;
    }

    @Test
    void everyCommandIsCoveredHere() {
        assertThat(world.getAllCommands()).extracting(c -> c.label)
                .containsExactlyInAnyOrder("DropBelowFloor", "DropEarlyAdmitsStale", "DroppedThenAdmitted");
    }

    @Test
    void aMarkBelowTheFloorIsDroppedSafely() {
        assertThat(run("DropBelowFloor").satisfiable()).as("counterexample to DropBelowFloor").isFalse();
    }

    @Test
    void aMarkDroppedEarlierAdmitsAStaleWrite() {
        A4Solution counterexample = run("DropEarlyAdmitsStale");
        assertThat(counterexample.satisfiable()).isTrue();
        System.out.println(counterexample);
    }

    @Test
    void aMarkIsDroppedAndAHolderAdmittedAfterIt() {
        assertThat(run("DroppedThenAdmitted").satisfiable()).isTrue();
    }
}
