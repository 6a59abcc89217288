package io.fenceguard.admission;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;

/**
 * A high-water store answering requests that present the same fence together: while the store is asked about a
 * fence, the requests arriving with that fence wait and are then answered by one further call, made after all of
 * them arrived (a group commit). Of a group whose call claimed the mark, the first request is the claim and the
 * others continue it, as if they had been admitted one after another; a stale or failed call answers every
 * request of its group alike. So N requests of one lease holder arriving together cost two store calls, not N.
 *
 * <p>Request-signed admissions ({@link SignedAdmissionStore#admit(Fence, String, Instant)}) of one fence are
 * coalesced alike: each records a nonce of its own, and a group's nonces and its admission are decided by one
 * call ({@link SignedAdmissionStore#admitEach}). Reset goes straight to the store.
 */
public class CoalescingHighWaterStore implements HighWaterStore {

    private final HighWaterStore store;
    private final ConcurrentMap<Fence, Lane> lanes = new ConcurrentHashMap<>();

    /** One fence's calls: whether one is under way, and the group waiting for the next. Guarded by itself. */
    private static final class Lane {
        boolean busy;
        Group next;
    }

    /** Requests answered by one call: the first of them makes it once its turn comes. */
    private static final class Group {
        final CompletableFuture<Void> turn = new CompletableFuture<>();
        final CompletableFuture<Admission> answer = new CompletableFuture<>();
    }

    private CoalescingHighWaterStore(HighWaterStore store) {
        this.store = store;
    }

    /** {@code store} with admissions of the same fence coalesced; a {@link SignedAdmissionStore} stays one. */
    public static HighWaterStore of(HighWaterStore store) {
        Objects.requireNonNull(store, "store");
        if (store instanceof CoalescingHighWaterStore) {
            return store;
        }
        return store instanceof SignedAdmissionStore signed ? new Signed(signed) : new CoalescingHighWaterStore(store);
    }

    @Override
    public Admission admit(Fence presented) {
        Group group;
        boolean caller;
        while (true) {
            Lane lane = lanes.computeIfAbsent(presented, fence -> new Lane());
            synchronized (lane) {
                if (lanes.get(presented) != lane) {
                    continue; // emptied and removed meanwhile
                }
                if (!lane.busy) {
                    lane.busy = true;
                    group = new Group();
                    group.turn.complete(null);
                    caller = true;
                } else if (lane.next == null) {
                    lane.next = new Group();
                    group = lane.next;
                    caller = true;
                } else {
                    group = lane.next;
                    caller = false;
                }
                break;
            }
        }
        if (caller) {
            // Not interruptible: this caller owes its group the call and the lane its hand-over. The call
            // ahead is bounded by the store's own timeouts.
            group.turn.join();
            try {
                Admission admission = store.admit(presented);
                group.answer.complete(admission);
                return admission;
            } catch (RuntimeException | Error e) {
                group.answer.completeExceptionally(e);
                throw e;
            } finally {
                handOver(presented);
            }
        }
        Admission first = await(group.answer);
        // The first of the group claimed; the others come after it with the same token.
        return first.outcome() == Admission.Outcome.CLAIMED
                ? new Admission(presented, first.highWater(), Admission.Outcome.CONTINUED) : first;
    }

    /** The call of a fence is done: the group that gathered meanwhile takes its turn, or the lane goes. */
    private void handOver(Fence presented) {
        Lane lane = lanes.get(presented);
        Group next;
        synchronized (lane) {
            next = lane.next;
            lane.next = null;
            if (next == null) {
                lane.busy = false;
                lanes.remove(presented, lane);
            }
        }
        if (next != null) {
            next.turn.complete(null);
        }
    }

    /** Waits for the call ahead (the store's own timeouts bound it); an interrupt fails this request closed. */
    private static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the high-water store was asked", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public HighWaterStore backend() {
        return store.backend();
    }

    @Override
    public boolean reset(ResourceName resource, FencingToken expected, FencingToken mark) {
        return store.reset(resource, expected, mark);
    }

    @Override
    public String toString() {
        return "Coalescing[" + store + "]";
    }

    /**
     * A {@link SignedAdmissionStore} coalesced: request-signed admissions of one fence arriving while the store is
     * asked about it are decided together by one further call ({@link SignedAdmissionStore#admitEach}), each nonce
     * recorded and answered on its own.
     */
    private static final class Signed extends CoalescingHighWaterStore implements SignedAdmissionStore {

        private final SignedAdmissionStore signed;
        private final ConcurrentMap<Fence, SignedLane> signedLanes = new ConcurrentHashMap<>();

        /** One fence's request-signed calls: whether one is under way, and the group gathering for the next. */
        private static final class SignedLane {
            boolean busy;
            SignedGroup next;
        }

        /** Nonces decided by one call; members join only until the group's turn comes (guarded by the lane). */
        private static final class SignedGroup {
            final CompletableFuture<Void> turn = new CompletableFuture<>();
            final List<Nonce> nonces = new ArrayList<>();
            final List<CompletableFuture<Optional<Admission>>> answers = new ArrayList<>();
        }

        Signed(SignedAdmissionStore signed) {
            super(signed);
            this.signed = signed;
        }

        @Override
        public Optional<Admission> admit(Fence presented, String nonce, Instant expires) {
            Nonce mine = new Nonce(nonce, expires);
            CompletableFuture<Optional<Admission>> answer = new CompletableFuture<>();
            SignedGroup group;
            boolean caller;
            while (true) {
                SignedLane lane = signedLanes.computeIfAbsent(presented, fence -> new SignedLane());
                synchronized (lane) {
                    if (signedLanes.get(presented) != lane) {
                        continue; // emptied and removed meanwhile
                    }
                    if (!lane.busy) {
                        lane.busy = true;
                        group = new SignedGroup();
                        group.turn.complete(null);
                        caller = true;
                    } else if (lane.next == null) {
                        lane.next = new SignedGroup();
                        group = lane.next;
                        caller = true;
                    } else {
                        group = lane.next;
                        caller = false;
                    }
                    group.nonces.add(mine);
                    group.answers.add(answer);
                    break;
                }
            }
            if (caller) {
                // Not interruptible: this caller owes its group the call and the lane its hand-over.
                group.turn.join();
                List<Nonce> nonces;
                List<CompletableFuture<Optional<Admission>>> answers;
                SignedLane lane = signedLanes.get(presented);
                synchronized (lane) {
                    // The group left the lane when its turn came: no member joins it any more.
                    nonces = List.copyOf(group.nonces);
                    answers = List.copyOf(group.answers);
                }
                try {
                    List<Optional<Admission>> decided = nonces.size() == 1
                            ? List.of(signed.admit(presented, mine.value(), mine.expires()))
                            : signed.admitEach(presented, nonces);
                    if (decided.size() != nonces.size()) {
                        throw new IllegalStateException(signed + " answered " + decided.size() + " of "
                                + nonces.size() + " request-signed admissions");
                    }
                    for (int i = 0; i < answers.size(); i++) {
                        answers.get(i).complete(decided.get(i));
                    }
                } catch (RuntimeException | Error e) {
                    answers.forEach(each -> each.completeExceptionally(e));
                    throw e;
                } finally {
                    handOverSigned(presented);
                }
            }
            return await(answer);
        }

        /** The call of a fence is done: the group that gathered meanwhile takes its turn, or the lane goes. */
        private void handOverSigned(Fence presented) {
            SignedLane lane = signedLanes.get(presented);
            SignedGroup next;
            synchronized (lane) {
                next = lane.next;
                lane.next = null;
                if (next == null) {
                    lane.busy = false;
                    signedLanes.remove(presented, lane);
                }
            }
            if (next != null) {
                next.turn.complete(null);
            }
        }

        @Override
        public List<Optional<Admission>> admitEach(Fence presented, List<Nonce> nonces) {
            return signed.admitEach(presented, nonces);
        }
    }
}
