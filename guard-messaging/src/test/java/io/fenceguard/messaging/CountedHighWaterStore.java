package io.fenceguard.messaging;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.core.Fence;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A high-water store that counts its calls: fences admitted one by one, and the size of each batch. */
public final class CountedHighWaterStore implements HighWaterStore {

    private final HighWaterStore store;
    private final AtomicInteger singleCalls = new AtomicInteger();
    private final List<Integer> batchSizes = new CopyOnWriteArrayList<>();

    public CountedHighWaterStore(HighWaterStore store) {
        this.store = store;
    }

    @Override
    public Admission admit(Fence presented) {
        singleCalls.incrementAndGet();
        return store.admit(presented);
    }

    @Override
    public List<Admission> admitAll(List<Fence> presented) {
        batchSizes.add(presented.size());
        return store.admitAll(presented);
    }

    /** Calls for one fence. */
    public AtomicInteger singleCalls() {
        return singleCalls;
    }

    /** The size of each batch call, in order. */
    public List<Integer> batchSizes() {
        return batchSizes;
    }
}
