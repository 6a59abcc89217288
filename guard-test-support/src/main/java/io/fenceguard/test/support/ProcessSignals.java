package io.fenceguard.test.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/** Signals to the server processes the tests start (freeze, thaw, kill), sent with {@code kill}. */
final class ProcessSignals {

    private ProcessSignals() {
    }

    /** Sends signal {@code name} (STOP, CONT, KILL…) to process {@code pid}; throws when it fails. */
    static void send(String name, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
