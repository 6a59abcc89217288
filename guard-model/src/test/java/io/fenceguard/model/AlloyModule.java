package io.fenceguard.model;

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
import java.util.List;
import java.util.Objects;

/** A standalone Alloy module of the test resources, its commands run with {@link FencingModel}'s solver settings. */
final class AlloyModule {

    private final CompModule world;

    private AlloyModule(CompModule world) {
        this.world = world;
    }

    static AlloyModule load(String resource) throws IOException {
        try (InputStream in = Objects.requireNonNull(AlloyModule.class.getResourceAsStream(resource), resource)) {
            return new AlloyModule(CompUtil.parseEverything_fromString(new A4Reporter(),
                    new String(in.readAllBytes(), StandardCharsets.UTF_8)));
        }
    }

    List<String> commandLabels() {
        return world.getAllCommands().stream().map(c -> c.label).toList();
    }

    /** Runs the command labelled {@code label} and prints whether it found an instance, and how long it took. */
    A4Solution run(String label) {
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
}
