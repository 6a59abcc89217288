package io.fenceguard.model;

import static org.assertj.core.api.Assertions.assertThat;

import edu.mit.csail.sdg.translator.A4Solution;
import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * When a mark may be dropped ({@code marks.als}): below the floor that the resource enforces for the lock store (every
 * lease that carried a token below it has expired), dropping it admits nothing stale; dropped earlier (the control),
 * a paused holder's stale write is admitted.
 */
class MarkDroppingModelTest {

    private static AlloyModule world;

    @BeforeAll
    static void load() throws IOException {
        world = AlloyModule.load("/io/fenceguard/model/marks.als");
    }

    static A4Solution run(String label) {
        return world.run(label);
    }

    @Test
    void everyCommandIsCoveredHere() {
        assertThat(world.commandLabels())
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
