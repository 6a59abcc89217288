package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets a claim back when nothing admitted under it succeeded on this instance: the requests admitted with one
 * fence are counted from just before their admission until their handler ends; when the last one ends and none
 * succeeded, and one of them claimed the mark (replacing a mark the store told), the mark is set back with
 * {@link HighWaterStore#reset} from the claimed token to the replaced one, which does nothing when a newer token
 * came meanwhile. A request arriving with the same fence waits while the mark is set back, so it is admitted
 * either before (and then counted, and nothing is set back) or after (and then claims again).
 */
final class ClaimWithdrawal {

    private static final Logger log = LoggerFactory.getLogger(ClaimWithdrawal.class);

    private final HighWaterStore store;
    private final ConcurrentMap<Fence, Requests> requests = new ConcurrentHashMap<>();

    /** The requests of one fence in flight here; guarded by itself. */
    private static final class Requests {
        int inFlight;
        boolean succeeded;
        /** What this fence's latest claim replaced; null: no claim here, or one whose replaced mark is unknown. */
        Admission.Replaced replaced;
        boolean ended;
    }

    ClaimWithdrawal(HighWaterStore store) {
        this.store = store;
    }

    /** A request with {@code presented} is about to be admitted. */
    void arriving(Fence presented) {
        while (true) {
            Requests entry = requests.computeIfAbsent(presented, fence -> new Requests());
            synchronized (entry) {
                if (!entry.ended) {
                    entry.inFlight++;
                    return;
                }
            }
        }
    }

    /** The store admitted a request counted by {@link #arriving}. */
    void admitted(Admission admission) {
        if (admission.outcome() != Admission.Outcome.CLAIMED) {
            return;
        }
        Requests entry = requests.get(admission.presented());
        if (entry != null) {
            synchronized (entry) {
                entry.replaced = admission.replaced();
            }
        }
    }

    /** A request counted by {@link #arriving} ended: refused, failed, or (succeeded) done. */
    void ended(Fence presented, boolean succeeded) {
        end(presented, succeeded, true);
    }

    /**
     * As {@link #ended}, when that sets no claim back: false, and nothing changed, when it would (the caller then
     * calls {@link #ended} where it may block).
     */
    boolean endedWithoutSettingBack(Fence presented, boolean succeeded) {
        return end(presented, succeeded, false);
    }

    private boolean end(Fence presented, boolean succeeded, boolean mayBlock) {
        Requests entry = requests.get(presented);
        if (entry == null) {
            return true;
        }
        synchronized (entry) {
            boolean settingBack = entry.inFlight == 1 && !entry.succeeded && !succeeded && entry.replaced != null;
            if (settingBack && !mayBlock) {
                return false;
            }
            entry.succeeded |= succeeded;
            if (--entry.inFlight > 0) {
                return true;
            }
            try {
                if (settingBack) {
                    setBack(presented, entry.replaced);
                }
            } finally {
                entry.ended = true;
                requests.remove(presented, entry);
            }
            return true;
        }
    }

    private void setBack(Fence presented, Admission.Replaced replaced) {
        try {
            if (store.reset(presented.resource(), presented.token(), replaced.mark())) {
                log.debug("no request admitted with {} succeeded; its claim was set back to {}", presented,
                        replaced.mark() == null ? "no mark" : replaced.mark());
            }
        } catch (UnsupportedOperationException e) {
            log.debug("{} cannot set back the claim of {}, whose requests failed", store, presented);
        } catch (RuntimeException e) {
            // The mark stays: older tokens are refused until a newer one succeeds (closed, not open).
            log.warn("could not set back the claim of {}, whose requests failed; the mark stays", presented, e);
        }
    }

    @Override
    public String toString() {
        return "ClaimWithdrawal[" + requests.size() + " fences in flight]";
    }
}
