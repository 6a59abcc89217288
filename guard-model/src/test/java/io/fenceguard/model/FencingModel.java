package io.fenceguard.model;

import edu.mit.csail.sdg.alloy4.A4Reporter;
import edu.mit.csail.sdg.ast.Command;
import edu.mit.csail.sdg.parser.CompModule;
import edu.mit.csail.sdg.parser.CompUtil;
import edu.mit.csail.sdg.translator.A4Options;
import edu.mit.csail.sdg.translator.A4Solution;
import edu.mit.csail.sdg.translator.TranslateAlloyToKodkod;
import kodkod.engine.satlab.SATFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Alloy model {@code fencing.als} (next to this class on the test class path), parsed once, and its
 * commands run with Alloy's own SAT4J solver: nothing but a JDK needed.
 */
final class FencingModel {

    static final String RESOURCE = "/io/fenceguard/model/fencing.als";

    /** One command's answer: whether an instance (a trace) was found, the time, and the trace as text. */
    record Answer(String command, boolean check, boolean satisfiable, long millis, String trace) {
    }

    private final CompModule world;
    private final A4Options options;

    private FencingModel(CompModule world) {
        this.world = world;
        this.options = new A4Options();
        options.solver = solver();
        // A solution never relies on an integer overflow.
        options.noOverflow = true;
        options.skolemDepth = 1;
    }

    /**
     * {@code -Dmodel.solver=<id>}, else MiniSat through JNI (its library ships inside the Alloy jar for
     * Linux, macOS and Windows on the usual CPUs), else SAT4J, in pure Java, which runs anywhere but slower.
     */
    static SATFactory solver() {
        String wanted = System.getProperty("model.solver", "");
        if (!wanted.isEmpty()) {
            return SATFactory.get(wanted);
        }
        return SATFactory.find("minisat").filter(SATFactory::isPresent).orElseGet(() -> SATFactory.get("sat4j"));
    }

    String solverId() {
        return options.solver.id();
    }

    static FencingModel load() {
        try (InputStream in = Objects.requireNonNull(FencingModel.class.getResourceAsStream(RESOURCE), RESOURCE)) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new FencingModel(CompUtil.parseEverything_fromString(new A4Reporter(), text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<String> commands() {
        List<String> names = new ArrayList<>();
        for (Command c : world.getAllCommands()) {
            names.add(c.label);
        }
        return names;
    }

    Command command(String label) {
        return world.getAllCommands().stream().filter(c -> c.label.equals(label)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no command " + label + " in " + RESOURCE));
    }

    Answer run(String label) {
        Command command = command(label);
        long start = System.nanoTime();
        A4Solution solution = TranslateAlloyToKodkod.execute_command(A4Reporter.NOP, world.getAllReachableSigs(),
                command, options);
        long millis = (System.nanoTime() - start) / 1_000_000;
        String trace = solution.satisfiable() ? trace(solution) : "";
        return new Answer(label, command.check, solution.satisfiable(), millis, trace);
    }

    /** The trace as one line per state: the event that led there, then the state. */
    private String trace(A4Solution s) {
        StringBuilder out = new StringBuilder();
        int loop = s.getLoopState();
        for (int i = 0; i < s.getTraceLength(); i++) {
            String ev = eval(s, "Step.ev", i);
            String lease = eval(s, "Step.lease", i);
            StringBuilder event = new StringBuilder(ev);
            if (!lease.equals("-")) {
                event.append(' ').append(lease).append("(t=").append(eval(s, "Step.lease.tok", i))
                        .append(", ").append(eval(s, "Step.lease.holder", i)).append(')');
            }
            if (!eval(s, "Step.guard", i).equals("-")) {
                event.append(" at ").append(eval(s, "Step.guard", i));
            }
            if (!eval(s, "Step.outcome", i).equals("-")) {
                event.append(": ").append(eval(s, "Step.outcome", i));
            }
            out.append(String.format("  %2d %-40s | clock master %-2s replica %-2s"
                            + " | redis counter %-2s lock %s until %-2s replica counter %-2s | row %-2s sql mark %-2s%s hw %-2s | granted %s"
                            + " | real %-2s held %s hold until %-2s believing %s%s%n",
                    i, event, eval(s, "rc", i), eval(s, "Clock.replica", i),
                    eval(s, "Redis.counter", i), eval(s, "Redis.owner", i), eval(s, "Redis.exp", i),
                    eval(s, "Redis.rcounter", i), eval(s, "Res.rowTok", i), eval(s, "Res.sqlMarkTok", i),
                    eval(s, "Res.sqlMarkHeld", i).equals("-") ? "" : " held by " + eval(s, "Res.sqlMarkHeld", i),
                    eval(s, "Res.hw", i), eval(s, "tok", i), eval(s, "Clock.now", i), eval(s, "Provider.pending", i),
                    eval(s, "Provider.holdEnd", i), eval(s, "believing", i), i == loop ? "   <- loop starts" : ""));
        }
        return out.toString();
    }

    private String eval(A4Solution s, String expression, int state) {
        Object value = s.eval(CompUtil.parseOneExpression_fromString(world, expression), state);
        // T$3 is the instant (token value) 3, Lease$1 the lease Lease1, Tick$0 the event Tick.
        String text = String.valueOf(value).replace("{", "").replace("}", "")
                .replaceAll("\\bT\\$(\\d+)", "$1").replaceAll("\\b(Lease|Client)\\$(\\d+)", "$1$2")
                .replace("$0", "").replace("->", "=").trim();
        return text.isEmpty() ? "-" : text;
    }
}
