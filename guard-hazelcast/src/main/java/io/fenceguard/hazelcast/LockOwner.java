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
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes, holds and gives back one lease's {@link FencedLock}, its calls made one at a time by whichever thread of the
 * provider's pool is free. A FencedLock belongs to the thread that locked it (within its member's CP session); here
 * every call of the lease is made under an owner id of the lease's own ({@link LockOwnerIds}), so the lock is the
 * lease's, not a pooled thread's, and a held lease keeps no thread. The calls run on the pool, not the caller's
 * thread, because a FencedLock call cannot be given a timeout and, without a CP majority, Hazelcast retries it for
 * minutes: the provider's callers (the acquiring thread, the renewal scheduler, whoever releases) hand their work over
 * and wait for the answer with a timeout of their own. The lease's own owner id also keeps two leases of one process
 * apart: FencedLock is reentrant per owner, and a pooled thread that still held a lock it could not give back would
 * otherwise be handed the same lock, with the same fence, again.
 *
 * <p>The lease ends once the lock is given back (released, expired here, abandoned) or found lost. A lock it could
 * not give back because the CP group did not answer (or might hold although the lock call failed) is
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
    /** Tells the lease when its lease time passes without a renewal. */
    private final ExpiryTimer timer;
    /** The lease's owner of its FencedLock, in place of the serving thread's id. */
    private final long ownerId = LockOwnerIds.next();
    /** The fence, {@link FencedLock#INVALID_FENCE} when the wait ran out; cancelled by a caller that gave up. */
    private final CompletableFuture<Long> granted = new CompletableFuture<>();
    private final Queue<Runnable> commands = new ArrayDeque<>();
    private final Runnable onEnd;
    private State state = State.ACQUIRING;
    /** A pooled thread runs the lease's commands: the next command is queued for it. */
    private boolean running;
    private boolean endReported;
    /** The lock was given back, or refused, under this lease's owner id, which holds and waits for nothing since. */
    private volatile boolean ownerIdFree;
    private ScheduledFuture<?> expiry;
    private long expiresAtNanos;
    private Consumer<LeaseLossReason> lossListener;
    private LeaseLossReason loss;
    private long fence;

    /**
     * @param locks         the lock's proxy: asked for on the serving thread, as it may ask the CP group for the lock's group
     * @param sentNanos     when the acquire was asked for: the lease counts from there
     * @param deadlineNanos the end of the acquire's wait
     * @param threads       the pool whose threads make the lease's calls
     * @param timer         tells the lease when its lease time passed
     * @param onEnd         called once, on a pooled thread, when the lease ends here
     */
    LockOwner(HazelcastInstance hazelcast, Supplier<FencedLock> locks, ResourceName resource, long leaseNanos, long sentNanos,
              long deadlineNanos, Executor threads, ExpiryTimer timer, Runnable onEnd) {
        this.hazelcast = hazelcast;
        this.locks = locks;
        this.resource = resource;
        this.leaseNanos = leaseNanos;
        this.expiresAtNanos = sentNanos + leaseNanos;
        this.deadlineNanos = deadlineNanos;
        this.onEnd = onEnd;
        this.threads = threads;
        this.timer = timer;
    }

    CompletableFuture<Long> start() {
        synchronized (this) {
            running = true;
        }
        threads.execute(() -> serve(this::take));
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
     * Asks the CP group whether the lock is still this lease's and, if so, counts the lease from
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
            cancelExpiry();
            // Queued in the same step as the end: the last command of the lease.
            queue(() -> giveBack(new CompletableFuture<>()));
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

    /**
     * Runs {@code first}, then the lease's queued commands one after the other, under the lease's owner id; the thread
     * goes back to its pool when none is left. {@code onEnd} is told once the lease has ended and has nothing left to run.
     */
    private void serve(Runnable first) {
        boolean ended;
        LockOwnerIds.adopt(ownerId);
        try {
            Runnable command = first;
            while (command != null) {
                try {
                    command.run();
                } catch (RuntimeException e) {
                    log.warn("A call on the FencedLock of {} failed", resource, e);
                }
                synchronized (this) {
                    command = commands.poll();
                    running = command != null;
                }
            }
        } finally {
            LockOwnerIds.clear();
        }
        synchronized (this) {
            ended = state == State.ENDED && !running && !endReported;
            endReported |= ended;
        }
        if (ended) {
            onEnd.run();
            if (ownerIdFree) {
                // The lease's last command has run: no call of it uses the id any more.
                LockOwnerIds.reuse(ownerId);
            }
        }
    }

    /** Takes the lock, waiting in its queue until the acquire's deadline. */
    private void take() {
        long fence;
        try {
            lock = locks.get();
            fence = lock.tryLockAndGetFence(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            // A wait cut short (a session renewed meanwhile) is taken up again until its deadline.
            while (fence == FencedLock.INVALID_FENCE && deadlineNanos - System.nanoTime() > 0 && !granted.isDone()) {
                fence = lock.tryLockAndGetFence(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
        } catch (Throwable e) {
            end(null);
            granted.completeExceptionally(e);
            if (lock != null) {
                // The group may have granted the lock although its answer was lost: give it back if it is this lease's.
                giveBackIfHeld();
            }
            return;
        }
        if (fence == FencedLock.INVALID_FENCE) {
            // Refused when the wait ran out: the group no longer queues this owner for the lock.
            ownerIdFree = true;
            end(null);
            granted.complete(fence);
            return;
        }
        this.fence = fence;
        synchronized (this) {
            state = State.HOLDING;
        }
        timer.admit(this, leaseNanos);
        if (!granted.complete(fence)) {
            // The caller gave up while the lock was on its way: nobody holds this lease, so nobody may hold the lock.
            end(null);
            giveBack(new CompletableFuture<>());
        }
    }

    /** Puts the held lease on the timer (once), for the end of its lease time; nothing when it ended meanwhile. */
    synchronized void armExpiry() {
        if (state == State.HOLDING && expiry == null) {
            expireIn(expiresAtNanos - System.nanoTime());
        }
    }

    /** Gives the lock back when the lease time passes without a renewal: checked then, and again if it was renewed. */
    private synchronized void expireIn(long nanos) {
        expiry = timer.schedule(() -> {
            if (due()) {
                // Checked again in turn: a renewal queued before this command may have moved the lease's end.
                queue(() -> {
                    if (due() && end(null)) {
                        log.warn("Lease on {} was not renewed within its lease time; its FencedLock is given back",
                                resource);
                        giveBack(new CompletableFuture<>());
                    }
                });
            }
        }, nanos);
    }

    /** True when the lease is held and its time has passed; when it is held and renewed meanwhile, checked again later. */
    private synchronized boolean due() {
        if (state != State.HOLDING) {
            return false;
        }
        long left = expiresAtNanos - System.nanoTime();
        if (left > 0) {
            expireIn(left);
            return false;
        }
        return true;
    }

    private synchronized void cancelExpiry() {
        if (expiry != null) {
            expiry.cancel(false);
            expiry = null;
        }
    }

    /** Unlocks for this lease, again and again while the CP group does not answer; completes {@code answer} at the first try. */
    private void giveBack(CompletableFuture<Boolean> answer) {
        retry(() -> {
            lock.unlock();
            // A lease locks once: given back, its owner holds nothing.
            ownerIdFree = true;
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
            cancelExpiry();
            return true;
        }
    }

    /** Queues a command of a held lease; false when the lease is not held here (any more). */
    private synchronized boolean submit(Runnable command) {
        if (state != State.HOLDING) {
            return false;
        }
        queue(command);
        return true;
    }

    /** Runs {@code command} after the lease's earlier ones, on a pooled thread. */
    private synchronized void queue(Runnable command) {
        if (running) {
            commands.add(command);
            return;
        }
        running = true;
        threads.execute(() -> serve(command));
    }

}
