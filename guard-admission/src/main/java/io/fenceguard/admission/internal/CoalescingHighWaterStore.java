package io.fenceguard.admission.internal;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotentAdmissionStore;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.SignedAdmissionStore;
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
    private final Lanes<Group> lanes = new Lanes<>(Group::new);

    /** Requests answered by one call: the first of them makes it once its turn comes. */
    private static final class Group extends Turn {
        final CompletableFuture<Admission> answer = new CompletableFuture<>();
    }

    /** A group's turn: completed when the call ahead of it is done. */
    private static class Turn {
        final CompletableFuture<Void> turn = new CompletableFuture<>();
    }

    /** The group a request joined, and whether it is the one to make the group's call. */
    private record Joined<G>(G group, boolean caller) {
    }

    /**
     * Per fence, whether a call is under way and the group gathering for the next one. A group takes members
     * until its turn comes, when it leaves its lane: its members are final by then.
     */
    private static final class Lanes<G extends Turn> {

        private final ConcurrentMap<Fence, Lane<G>> byFence = new ConcurrentHashMap<>();
        private final java.util.function.Supplier<G> newGroup;

        /** One fence's calls: whether one is under way, and the group waiting for the next. Guarded by itself. */
        private static final class Lane<G> {
            boolean busy;
            G next;
        }

        Lanes(java.util.function.Supplier<G> newGroup) {
            this.newGroup = newGroup;
        }

        /** Joins the group of {@code presented} that will be asked next, {@code member} added under the lane's lock. */
        Joined<G> join(Fence presented, java.util.function.Consumer<G> member) {
            while (true) {
                Lane<G> lane = byFence.computeIfAbsent(presented, fence -> new Lane<>());
                synchronized (lane) {
                    if (byFence.get(presented) != lane) {
                        continue; // emptied and removed meanwhile
                    }
                    Joined<G> joined;
                    if (!lane.busy) {
                        lane.busy = true;
                        G group = newGroup.get();
                        group.turn.complete(null);
                        joined = new Joined<>(group, true);
                    } else if (lane.next == null) {
                        lane.next = newGroup.get();
                        joined = new Joined<>(lane.next, true);
                    } else {
                        joined = new Joined<>(lane.next, false);
                    }
                    member.accept(joined.group());
                    return joined;
                }
            }
        }

        /** The call of a fence is done: the group that gathered meanwhile takes its turn, or the lane goes. */
        void handOver(Fence presented) {
            Lane<G> lane = byFence.get(presented);
            G next;
            synchronized (lane) {
                next = lane.next;
                lane.next = null;
                if (next == null) {
                    lane.busy = false;
                    byFence.remove(presented, lane);
                }
            }
            if (next != null) {
                next.turn.complete(null);
            }
        }
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
        return store.signedAdmissions().<HighWaterStore>map(Signed::new).orElseGet(() -> new CoalescingHighWaterStore(store));
    }

    @Override
    public Admission admit(Fence presented) {
        Joined<Group> joined = lanes.join(presented, group -> { });
        Group group = joined.group();
        if (joined.caller()) {
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
                lanes.handOver(presented);
            }
        }
        Admission first = await(group.answer);
        // The first of the group claimed; the others come after it with the same token.
        return first.outcome() == Admission.Outcome.CLAIMED
                ? new Admission(presented, first.highWater(), Admission.Outcome.CONTINUED) : first;
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

    /** Already coalesced. */
    @Override
    public boolean admissionsMayCoalesce() {
        return false;
    }

    /** A caller that does not block has no thread to save: the store's own calls. */
    @Override
    public Optional<NonBlockingAdmissionStore> nonBlocking() {
        return store.nonBlocking();
    }

    /** A request claiming an idempotency key is not coalesced (its claim is its own): the store's own call. */
    @Override
    public Optional<IdempotentAdmissionStore> idempotentAdmissions() {
        return store.idempotentAdmissions();
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
        private final Lanes<SignedGroup> signedLanes = new Lanes<>(SignedGroup::new);

        /** Nonces decided by one call, each with its request's answer; members join under the lane's lock. */
        private static final class SignedGroup extends Turn {
            final List<Nonce> nonces = new ArrayList<>();
            final List<CompletableFuture<Optional<Admission>>> answers = new ArrayList<>();
        }

        Signed(SignedAdmissionStore signed) {
            super(signed);
            this.signed = signed;
        }

        @Override
        public Optional<Admission> admit(Fence presented, String nonce, Instant expires) {
            return admit(presented, new Nonce(nonce, expires));
        }

        @Override
        public Optional<Admission> admit(Fence presented, Nonce mine) {
            CompletableFuture<Optional<Admission>> answer = new CompletableFuture<>();
            Joined<SignedGroup> joined = signedLanes.join(presented, group -> {
                group.nonces.add(mine);
                group.answers.add(answer);
            });
            if (joined.caller()) {
                SignedGroup group = joined.group();
                // Not interruptible: this caller owes its group the call and the lane its hand-over.
                group.turn.join();
                // The group left its lane when its turn came: no member joins it any more.
                List<Nonce> nonces = List.copyOf(group.nonces);
                List<CompletableFuture<Optional<Admission>>> answers = List.copyOf(group.answers);
                try {
                    List<Optional<Admission>> decided = nonces.size() == 1
                            ? List.of(signed.admit(presented, mine))
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
                    signedLanes.handOver(presented);
                }
            }
            return await(answer);
        }

        @Override
        public List<Optional<Admission>> admitEach(Fence presented, List<Nonce> nonces) {
            return signed.admitEach(presented, nonces);
        }
    }
}
