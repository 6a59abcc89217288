package io.fenceguard.core;

/**
 * Told of every write a fenced resource refuses, whichever layer refused it (statements, requests, messages), for
 * metrics and logs. Called once per refusal, on the thread that refused, before the refusal reaches the caller;
 * what a listener throws is logged and ignored, so keep it short and do not throw.
 */
@FunctionalInterface
public interface RefusalListener {

    void refused(Refusal refusal);

    /** Tells nobody. */
    static RefusalListener none() {
        return refusal -> { };
    }

    /** Tells each of {@code listeners} in order; one that throws does not keep the others from hearing. */
    static RefusalListener all(java.util.List<? extends RefusalListener> listeners) {
        java.util.List<RefusalListener> each = java.util.List.copyOf(listeners);
        return refusal -> {
            for (RefusalListener listener : each) {
                try {
                    listener.refused(refusal);
                } catch (RuntimeException e) {
                    System.getLogger(RefusalListener.class.getName()).log(System.Logger.Level.WARNING,
                            "refusal listener failed; ignored", e);
                }
            }
        };
    }
}
