package example.accounts;

import java.util.ArrayList;
import java.util.List;

/** The outcome of the checks as an exit status: 0, or 1 with the reason on standard error. */
final class SelfCheck {

    private SelfCheck() {
    }

    static int run(Runnable checks) {
        try {
            checks.run();
            System.out.println("SELF-CHECK PASSED");
            return 0;
        } catch (Throwable e) {
            System.err.println("SELF-CHECK FAILED: " + e);
            e.printStackTrace();
            return 1;
        }
    }

    static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what);
        }
    }

    /** {@code e} and its causes, outermost first. */
    static List<Throwable> causes(Throwable e) {
        List<Throwable> all = new ArrayList<>();
        for (Throwable t = e; t != null && !all.contains(t); t = t.getCause()) {
            all.add(t);
        }
        return all;
    }
}
