package io.fenceguard.messaging;

/** Told of every message a consumer refuses, for metrics and logs. Keep it short; do not throw. */
@FunctionalInterface
public interface MessageRefusalListener {

    void refused(String source, MessageRefusedException refusal);
}
