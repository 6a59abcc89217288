package io.fenceguard.admission;

/** Told of every request the fencing filter refuses, for metrics and logs. Keep it short; do not throw. */
@FunctionalInterface
public interface RefusalListener {

    void refused(String method, String path, Problem problem);
}
