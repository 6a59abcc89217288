package io.fenceguard.model;

import static org.assertj.core.api.Assertions.assertThat;

import edu.mit.csail.sdg.translator.A4Solution;
import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lock-out model ({@code lockout.als}, a module of its own beside {@code fencing.als}): a token never granted for
 * the resource cannot lock its holders out under the per-resource bound, fencing still holds with healing, and the
 * control (the global ceiling alone) has a counterexample.
 */
class LockOutModelTest {

    private static AlloyModule world;

    @BeforeAll
    static void load() throws IOException {
        world = AlloyModule.load("/io/fenceguard/model/lockout.als");
    }

    static A4Solution run(String label) {
        return world.run(label);
    }

    @Test
    void everyCommandIsCoveredHere() {
        assertThat(world.commandLabels()).containsExactlyInAnyOrder("NoLockOut",
                "NoLockOutWithoutHealing", "NoStaleAdmittedBounded", "NoStaleAdmittedHealingOnly",
                "LockOutUnderGlobalCeiling", "ForgedWhileLostThenHolderAdmitted");
    }

    @ParameterizedTest(name = "{0} holds")
    @ValueSource(strings = {"NoLockOut", "NoLockOutWithoutHealing", "NoStaleAdmittedBounded", "NoStaleAdmittedHealingOnly"})
    void theBoundedRuleHolds(String check) {
        assertThat(run(check).satisfiable()).as("counterexample to " + check).isFalse();
    }

    @Test
    void theGlobalCeilingAloneLocksHoldersOut() {
        A4Solution counterexample = run("LockOutUnderGlobalCeiling");
        assertThat(counterexample.satisfiable()).isTrue();
        System.out.println(counterexample);
    }

    @Test
    void aTokenAdmittedWhileTheStoreCannotTellIsReachable() {
        assertThat(run("ForgedWhileLostThenHolderAdmitted").satisfiable()).isTrue();
    }
}
