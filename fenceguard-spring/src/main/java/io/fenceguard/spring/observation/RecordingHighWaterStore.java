package io.fenceguard.spring.observation;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.core.Fence;
import java.util.Locale;

/**
 * A {@link HighWaterStore} that notes each answer in {@link FenceguardActivity}; the decision is the store's.
 * Loaded only with fenceguard-http.
 */
public final class RecordingHighWaterStore implements HighWaterStore {

    private final HighWaterStore store;
    private final FenceguardActivity activity;

    public RecordingHighWaterStore(HighWaterStore store, FenceguardActivity activity) {
        this.store = store;
        this.activity = activity;
    }

    @Override
    public Admission admit(Fence presented) {
        Admission admission = store.admit(presented);
        activity.sawHighWater(presented, admission.highWater().value(), admission.outcome().name().toLowerCase(Locale.ROOT));
        return admission;
    }

    @Override
    public HighWaterStore backend() {
        return store.backend();
    }

    @Override
    public boolean reset(io.fenceguard.core.ResourceName resource, io.fenceguard.core.FencingToken expected,
            io.fenceguard.core.FencingToken mark) {
        return store.reset(resource, expected, mark);
    }

    /** The store that decides. */
    public HighWaterStore store() {
        return store;
    }

    @Override
    public String toString() {
        return store.toString();
    }
}
