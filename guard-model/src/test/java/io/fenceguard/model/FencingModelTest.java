package io.fenceguard.model;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the protocol model within its scope (every command of {@code fencing.als}): the two safety
 * properties hold (no counterexample), the model is not vacuous (an overlap of holders is reachable and
 * refused), and each negative control (one feature or assumption removed) yields a counterexample,
 * printed as a trace.
 */
class FencingModelTest {

    private static FencingModel model;
    private static long startNanos;

    @BeforeAll
    static void load() {
        startNanos = System.nanoTime();
        model = FencingModel.load();
        System.out.printf("fencing model: solver %s%n", model.solverId());
    }

    @AfterAll
    static void total() {
        long cpuMillis = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1_000_000;
        System.out.printf("fencing model: all commands in %d ms (%d ms of CPU on the test thread)%n",
                (System.nanoTime() - startNanos) / 1_000_000, cpuMillis);
    }

    @Test
    void everyCommandOfTheModelIsCoveredHere() {
        assertThat(model.commands()).containsExactlyInAnyOrder(
                "NoTokenTwice", "NoStaleAdmittedAtRow", "NoStaleAdmittedAtSqlMark", "NoStaleAdmittedAtHttp",
                "OverlapRefused",
                "NoTokenTwiceEpoch", "NoStaleAdmittedAtRowEpoch", "NoStaleAdmittedAtSqlMarkEpoch",
                "NoStaleAdmittedAtHttpEpoch",
                "NoFloorTokenTwice", "NoRowFenceStale", "NoSqlMarkFenceStale", "NoHttpFenceStale",
                "ClockBoundBrokenTokenTwice", "EpochNotIncreasedTokenTwice", "EpochLaggingReplicaTokenTwice",
                "EpochHoldersWithinBound", "OlderEpochBelowNewer", "ClockFloorBoundRefusesEpochHolder",
                "UnboundedRangeOlderEpochAbove",
                "ExclusiveAfterJump", "HeldGrantHandedOut", "NoJumpHoldOverlap", "HoldFromSightingOverlap",
                "NoTokenTwiceEpochAcked", "NoTokenTwiceEpochMove", "MoveWithoutAdvanceTokenTwice");
    }

    @ParameterizedTest(name = "{0} holds")
    @ValueSource(strings = {"NoTokenTwice", "NoStaleAdmittedAtRow", "NoStaleAdmittedAtSqlMark", "NoStaleAdmittedAtHttp",
            "NoTokenTwiceEpoch", "NoStaleAdmittedAtRowEpoch", "NoStaleAdmittedAtSqlMarkEpoch", "NoStaleAdmittedAtHttpEpoch",
            "EpochHoldersWithinBound", "OlderEpochBelowNewer", "ExclusiveAfterJump", "NoTokenTwiceEpochAcked",
            "NoTokenTwiceEpochMove"})
    void propertyHoldsWithinTheScope(String check) {
        FencingModel.Answer answer = model.run(check);
        System.out.printf("check %s: %s in %d ms%n", check,
                answer.satisfiable() ? "COUNTEREXAMPLE" : "no counterexample", answer.millis());
        assertThat(answer.check()).isTrue();
        assertThat(answer.satisfiable())
                .as("counterexample to %s:%n%s", check, answer.trace())
                .isFalse();
    }

    @Test
    void theModelReachesTwoHoldersAndRefusesTheOlder() {
        FencingModel.Answer answer = model.run("OverlapRefused");
        System.out.printf("run OverlapRefused: %s in %d ms%n%s", answer.satisfiable() ? "trace" : "NO TRACE",
                answer.millis(), answer.trace());
        assertThat(answer.satisfiable()).as("the model must reach a refused write after a clock step").isTrue();
        assertThat(answer.trace()).contains("ClockStep").contains("Refused");
    }

    @Test
    void aGrantHeldAfterAJumpIsHandedOut() {
        FencingModel.Answer answer = model.run("HeldGrantHandedOut");
        System.out.printf("run HeldGrantHandedOut: %s in %d ms%n%s", answer.satisfiable() ? "trace" : "NO TRACE",
                answer.millis(), answer.trace());
        assertThat(answer.satisfiable()).as("a grant held after a jump must be handed out once the hold is over").isTrue();
        assertThat(answer.trace()).containsPattern("Mint .*held Lease").contains("HandOut");
    }

    @ParameterizedTest(name = "{0} yields a counterexample")
    @ValueSource(strings = {"NoFloorTokenTwice", "NoRowFenceStale", "NoSqlMarkFenceStale", "NoHttpFenceStale",
            "ClockBoundBrokenTokenTwice", "EpochNotIncreasedTokenTwice", "EpochLaggingReplicaTokenTwice",
            "ClockFloorBoundRefusesEpochHolder", "UnboundedRangeOlderEpochAbove", "NoJumpHoldOverlap",
            "MoveWithoutAdvanceTokenTwice",
            "HoldFromSightingOverlap"})
    void negativeControlYieldsACounterexample(String control) {
        FencingModel.Answer answer = model.run(control);
        System.out.printf("negative control %s: %s in %d ms%n%s", control,
                answer.satisfiable() ? "counterexample" : "NONE", answer.millis(), answer.trace());
        assertThat(answer.check()).isFalse();
        assertThat(answer.satisfiable()).as("%s must yield a counterexample", control).isTrue();
        if (control.endsWith("Stale")) {
            assertThat(answer.trace()).contains("StaleAdmitted");
        } else if (control.endsWith("RefusesEpochHolder")) {
            assertThat(answer.trace()).contains("HttpWrite").contains("OutOfRange");
        } else if (control.endsWith("OlderEpochAbove")) {
            // a token of the older epoch at or above one of the newer
            assertThat(answer.trace()).containsPattern("Mint .*\\n(.*\\n)*.*Mint ");
        } else if (control.startsWith("Move")) {
            // the same token again after the store moved to a sequence behind the old one
            assertThat(answer.trace()).containsPattern("Move\\b(.*\\n)*.*Mint ");
        } else if (control.endsWith("Overlap")) {
            // two holders believe at once, the later one granted after a forward step of the master's clock
            assertThat(answer.trace()).contains("ClockStep").containsPattern("believing Lease\\d, Lease\\d");
        } else {
            assertThat(answer.trace()).containsPattern("Mint .*\\n(.*\\n)*.*Mint ");
        }
    }
}
