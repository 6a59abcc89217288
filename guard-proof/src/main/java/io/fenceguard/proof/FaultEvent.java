package io.fenceguard.proof;

/** A fault the nemesis injected, from {@code start} until it was healed at {@code end} (epoch millis). */
public record FaultEvent(String kind, String target, long start, long end) {
}
