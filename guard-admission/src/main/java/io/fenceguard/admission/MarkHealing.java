package io.fenceguard.admission;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets back a mark that no lock store minted. When a fence is refused as stale, the lock store is asked for the
 * highest token it has minted for the resource ({@link IssuedTokens}); a mark above it was admitted from a token
 * the store never granted, so the mark is set back to the store's highest token (logged and counted) and the fence
 * is admitted again. A holder is then refused only by a mark some lock store actually minted, and a token that
 * was not minted locks the resource out until the first refusal of a current holder, not until an operator's
 * {@link HighWaterReset}.
 *
 * <p>Safe: the mark goes back only to a token the store had minted when asked, so it stays at or above every
 * minted token admitted before; a newer claim meanwhile makes the set-back fail (it expects the unminted mark).
 */
public final class MarkHealing {

    private static final Logger log = LoggerFactory.getLogger(MarkHealing.class);

    private final HighWaterStore store;
    private final IssuedTokens issued;
    private final AtomicLong healed = new AtomicLong();
    private final List<BiConsumer<ResourceName, FencingToken>> listeners = new CopyOnWriteArrayList<>();

    private MarkHealing(HighWaterStore store, IssuedTokens issued) {
        this.store = Objects.requireNonNull(store, "store");
        this.issued = Objects.requireNonNull(issued, "issued");
    }

    /** Marks of {@code store} checked against {@code issued}; the store must support {@link HighWaterStore#reset}. */
    public static MarkHealing of(HighWaterStore store, IssuedTokens issued) {
        return new MarkHealing(store, issued);
    }

    /**
     * {@code refused} when its mark was minted (or the store cannot tell, or cannot be reached); otherwise the
     * admission of its fence after the mark was set back.
     *
     * @throws RuntimeException when the high-water store fails while setting back or admitting again
     */
    public Admission heal(Admission refused) {
        return setBack(refused) ? store.admit(refused.presented()) : refused;
    }

    /**
     * Whether {@code refused}'s mark was above every token the lock store minted for its resource and has been set
     * back (here, or meanwhile by a newer claim): then the caller admits the fence again in its own way.
     *
     * @throws RuntimeException when the high-water store fails while setting back
     */
    public boolean setBack(Admission refused) {
        if (refused.admitted()) {
            return false;
        }
        ResourceName resource = refused.presented().resource();
        FencingToken mark = refused.highWater();
        Optional<FencingToken> minted;
        try {
            minted = issued.highestIssued(resource);
        } catch (RuntimeException e) {
            log.warn("fenceguard: could not ask the lock store what it minted for '{}'; the refusal stands: {}",
                    resource, e.toString());
            return false;
        }
        if (minted.isEmpty() || !mark.isNewerThan(minted.get())) {
            return false;
        }
        boolean reset;
        try {
            reset = store.reset(resource, mark, minted.get());
        } catch (UnsupportedOperationException e) {
            log.warn("fenceguard: the mark {} of '{}' is above every token the lock store minted for it ({}), but {} "
                    + "cannot set marks back; the refusal stands", mark, resource, minted.get(), store);
            return false;
        }
        if (reset) {
            healed.incrementAndGet();
            listeners.forEach(listener -> listener.accept(resource, minted.get()));
            log.warn("fenceguard: the mark {} of '{}' is above every token the lock store minted for it ({}): "
                    + "set back to {} (a token from a leaked key or a broken client was admitted)",
                    mark, resource, minted.get(), minted.get());
        }
        return true;
    }

    /**
     * Tells {@code listener} of every mark set back here (the resource and its new mark), before the fence is
     * admitted again: for what remembers admitted tokens beside the store, such as a {@link HandlerOrder}.
     */
    public void whenSetBack(BiConsumer<ResourceName, FencingToken> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** How many marks were set back since this was built. */
    public long healed() {
        return healed.get();
    }

    @Override
    public String toString() {
        return "MarkHealing[" + issued + ", healed " + healed + "]";
    }
}
