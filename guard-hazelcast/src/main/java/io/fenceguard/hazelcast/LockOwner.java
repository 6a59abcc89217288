package io.fenceguard.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.lock.FencedLock;
import com.hazelcast.cp.lock.exception.LockOwnershipLostException;
import io.fenceguard.core.LeaseLossReason;
import io.fenceguard.core.ResourceName;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes, holds and gives back one lease's {@link FencedLock}, on a thread of the provider's pool that serves this lease
 * until it ends. A FencedLock belongs to the thread that locked it (within its member's CP session); here every call of
 * the lease is made under an owner id of the lease's own ({@link LockOwnerIds}), so the lock is the lease's, not the
 * pooled thread's. The calls run on that thread, not the caller's, because a FencedLock call cannot be given a timeout
 * and, without a CP majority, Hazelcast retries it for minutes: the provider's callers (the acquiring thread, the
 * renewal scheduler, whoever releases) hand their work over and wait for the answer with a timeout of their own. The
 * lease's own owner id also keeps two leases of one process apart: FencedLock is reentrant per owner, and a pooled
 * thread that still held a lock it could not give back would otherwise be handed the same lock, with the same fence,
 * again.
 *
 * <p>The thread returns to its pool once the lock is given back (released, expired here, abandoned) or found lost. A
 * lock it could not give back because the CP group did not answer (or might hold although the lock call failed) is
 * given back again and again until the group answers, the ownership is gone, the Hazelcast instance stops, or five
 * minutes passed: the member's CP session outlives the lease, and a lock left behind would block its resource for as
 * long as the member lives.
 */
final class LockOwner {

    private static final Logger log = LoggerFactory.getLogger(LockOwner.class);
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** How long a lock that cannot be given back is tried again: past it the member's CP session must free it. */
    private static final long GIVE_BACK_PATIENCE_NANOS = TimeUnit.MINUTES.toNanos(5);

    private enum State { ACQUIRING, HOLDING, ENDED }

    private final HazelcastInstance hazelcast;
    private final Supplier<FencedLock> locks;
    private FencedLock lock;
    private final ResourceName resource;
    private final long leaseNanos;
    private final long deadlineNanos;
    private final Executor threads;
    /** The lease's owner of its FencedLock, in place of the serving thread's id. */
    private final long ownerId = LockOwnerIds.next();
    /** The fence, {@link FencedLock#INVALID_FENCE} when the wait ran out; cancelled by a caller that gave up. */
    private final CompletableFuture<Long> granted = new CompletableFuture<>();
    private final Queue<Runnable> commands = new ArrayDeque<>();
    private final Runnable onEnd;
    private State state = State.ACQUIRING;
    private long expiresAtNanos;
    private Consumer<LeaseLossReason> lossListener;
    private LeaseLossReason loss;
    private long fence;

    /**
     * @param locks         the lock's proxy: asked for on the serving thread, as it may ask the CP group for the lock's group
     * @param sentNanos     when the acquire was asked for: the lease counts from there
     * @param deadlineNanos the end of the acquire's wait
     * @param threads       the pool whose thread serves the lease until it ends
     * @param onEnd         called once, on the serving thread, when the lease ends here
     */
    LockOwner(HazelcastInstance hazelcast, Supplier<FencedLock> locks, ResourceName resource, long leaseNanos, long sentNanos,
              long deadlineNanos, Executor threads, Runnable onEnd) {
        this.hazelcast = hazelcast;
        this.locks = locks;
        this.resource = resource;
        this.leaseNanos = leaseNanos;
        this.expiresAtNanos = sentNanos + leaseNanos;
        this.deadlineNanos = deadlineNanos;
        this.onEnd = onEnd;
        this.threads = threads;
    }

    /** Completes exceptionally at once when the pool takes no more work (the provider closed). */
    CompletableFuture<Long> start() {
        try {
            threads.execute(this::serveLease);
        } catch (RejectedExecutionException e) {
            granted.completeExceptionally(e);
        }
        return granted;
    }

    /** The caller stopped waiting: true when nothing was granted, and a lock granted later is given back at once. */
    boolean abandon() {
        return granted.cancel(false);
    }

    long fence() {
        return fence;
    }

    /**
     * Asks the holding thread whether the lock is still this lease's and, if so, counts the lease from
     * {@code sentNanos}. Completes with false when it is not (or no longer held here), exceptionally when the CP group
     * did not answer.
     */
    CompletableFuture<Boolean> renew(long sentNanos) {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        if (!submit(() -> {
            try {
                if (lock.isLockedByCurrentThread()) {
                    synchronized (this) {
                        expiresAtNanos = Math.max(expiresAtNanos, sentNanos + leaseNanos);
                    }
                    answer.complete(true);
                    return;
                }
            } catch (LockOwnershipLostException e) {
                // The member's CP session was closed: the lock went with it.
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
                return;
            }
            // Answered by the renewal's false: the manager reports the loss.
            end(LeaseLossReason.RENEWAL_REJECTED);
            answer.complete(false);
        })) {
            answer.complete(false);
        }
        return answer;
    }

    /** Gives the lock back: true when it was still this lease's, exceptionally when the CP group did not answer. */
    CompletableFuture<Boolean> release() {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        if (!submit(() -> {
            end(null);
            giveBack(answer);
        })) {
            answer.complete(false);
        }
        return answer;
    }

    /**
     * The lock is gone or cannot be kept (its instance stops, its client lost the cluster): ends the lease, tells its
     * watch, and gives the lock back if the group still holds it for this lease.
     */
    void revoke() {
        Consumer<LeaseLossReason> listener;
        synchronized (this) {
            if (state != State.HOLDING) {
                return;
            }
            state = State.ENDED;
            loss = LeaseLossReason.REVOKED;
            listener = lossListener;
            lossListener = null;
            // Queued in the same step as the end, so that the thread runs it before it stops serving.
            commands.add(() -> giveBack(new CompletableFuture<>()));
            notifyAll();
        }
        if (listener != null) {
            listener.accept(LeaseLossReason.REVOKED);
        }
    }

    /** Calls {@code listener} once if the lock is lost while held; at once when it already was. */
    AutoCloseable watch(Consumer<LeaseLossReason> listener) {
        LeaseLossReason already;
        synchronized (this) {
            already = loss;
            if (already == null) {
                lossListener = listener;
            }
        }
        if (already != null) {
            listener.accept(already);
            return () -> { };
        }
        return () -> {
            synchronized (this) {
                if (lossListener == listener) {
                    lossListener = null;
                }
            }
        };
    }

    private void serveLease() {
        LockOwnerIds.adopt(ownerId);
        try {
            run();
        } finally {
            LockOwnerIds.clear();
        }
    }

    private void run() {
        long fence;
        try {
            lock = locks.get();
            fence = lock.tryLockAndGetFence(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            // A wait cut short (a session renewed meanwhile) is taken up again until its deadline.
            while (fence == FencedLock.INVALID_FENCE && deadlineNanos - System.nanoTime() > 0 && !granted.isDone()) {
                fence = lock.tryLockAndGetFence(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
        } catch (Throwable e) {
            granted.completeExceptionally(e);
            if (lock != null) {
                // The group may have granted the lock although its answer was lost: give it back if it is this lease's.
                giveBackIfHeld();
            }
            onEnd.run();
            return;
        }
        if (fence == FencedLock.INVALID_FENCE) {
            granted.complete(fence);
            onEnd.run();
            return;
        }
        this.fence = fence;
        synchronized (this) {
            state = State.HOLDING;
        }
        if (!granted.complete(fence)) {
            // The caller gave up while the lock was on its way: nobody holds this lease, so nobody may hold the lock.
            end(null);
            giveBack(new CompletableFuture<>());
        }
        serve();
        onEnd.run();
    }

    /** Runs the commands of the lease until it ends; gives the lock back when the lease time passes without a renewal. */
    private void serve() {
        while (true) {
            Runnable command;
            synchronized (this) {
                while ((command = commands.poll()) == null) {
                    if (state == State.ENDED) {
                        return;
                    }
                    long left = expiresAtNanos - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    } catch (InterruptedException e) {
                        // Never interrupted by the provider; an interrupt from elsewhere does not end the lease.
                        Thread.interrupted();
                    }
                }
            }
            if (command != null) {
                command.run();
            } else if (end(null)) {
                log.warn("Lease on {} was not renewed within its lease time; its FencedLock is given back", resource);
                giveBack(new CompletableFuture<>());
            }
        }
    }

    /** Unlocks for this lease, again and again while the CP group does not answer; completes {@code answer} at the first try. */
    private void giveBack(CompletableFuture<Boolean> answer) {
        retry(() -> {
            lock.unlock();
            answer.complete(true);
        }, () -> answer.complete(false), answer::completeExceptionally);
    }

    private void giveBackIfHeld() {
        retry(() -> {
            if (lock.isLockedByCurrentThread()) {
                lock.unlock();
            }
        }, () -> { }, error -> { });
    }

    /**
     * Runs {@code call} until it returns; {@code notHeld} when the lock is not this lease's (its session was closed:
     * nothing to give back). Tried again every half second while the instance runs, for at most
     * {@link #GIVE_BACK_PATIENCE_NANOS}; {@code failed} is told of the first failure.
     */
    private void retry(Runnable call, Runnable notHeld, Consumer<RuntimeException> failed) {
        long giveUpAt = System.nanoTime() + GIVE_BACK_PATIENCE_NANOS;
        boolean first = true;
        while (true) {
            try {
                call.run();
                return;
            } catch (IllegalMonitorStateException e) {
                // LockOwnershipLostException too: not held by this lease any longer.
                notHeld.run();
                return;
            } catch (RuntimeException e) {
                if (first) {
                    failed.accept(e);
                    first = false;
                }
                if (!hazelcast.getLifecycleService().isRunning()) {
                    return; // the member's sessions end with it
                }
                if (System.nanoTime() - giveUpAt > 0) {
                    log.warn("Could not give back the FencedLock of {}; it is freed when this member's CP session"
                            + " ends: {}", resource, e.toString());
                    return;
                }
                log.debug("Could not give back the FencedLock of {} yet, trying again: {}", resource, e.toString());
                try {
                    TimeUnit.NANOSECONDS.sleep(RETRY_NANOS);
                } catch (InterruptedException interrupted) {
                    Thread.interrupted();
                }
            }
        }
    }

    /** Ends the lease here; true for the one caller that ended it. */
    private boolean end(LeaseLossReason reason) {
        synchronized (this) {
            if (state == State.ENDED) {
                return false;
            }
            state = State.ENDED;
            loss = reason;
            notifyAll();
            return true;
        }
    }

    /** Queues a command of a held lease; false when the lease is not held here (any more). */
    private synchronized boolean submit(Runnable command) {
        if (state != State.HOLDING) {
            return false;
        }
        commands.add(command);
        notifyAll();
        return true;
    }

}
