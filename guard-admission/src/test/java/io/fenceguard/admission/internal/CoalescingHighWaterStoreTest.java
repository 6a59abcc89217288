package io.fenceguard.admission.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.Admission.Outcome;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Requests presenting the same fence together are answered by fewer store calls, with the answers of one by one. */
class CoalescingHighWaterStoreTest {

    private static final int REQUESTS = 16;

    private final ExecutorService threads = Executors.newFixedThreadPool(REQUESTS);
    private final InMemoryHighWaterStore memory = InMemoryHighWaterStore.create();
    private final AtomicInteger calls = new AtomicInteger();
    private final CountDownLatch firstCallMayEnd = new CountDownLatch(1);
    private volatile RuntimeException failure;

    /** The store, whose first call is held until the test lets it end, so that the others arrive meanwhile. */
    private final HighWaterStore slow = presented -> {
        if (calls.incrementAndGet() == 1) {
            try {
                firstCallMayEnd.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (failure != null) {
            throw failure;
        }
        return memory.admit(presented);
    };

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
    }

    private static Fence fence(ResourceName resource, long token) {
        return new Fence(resource, FencingToken.of(token));
    }

    private List<Future<Admission>> admitTogether(HighWaterStore store, Fence fence) throws Exception {
        List<Future<Admission>> answers = new ArrayList<>();
        answers.add(threads.submit(() -> store.admit(fence)));
        while (calls.get() == 0) {
            Thread.sleep(1);
        }
        for (int i = 1; i < REQUESTS; i++) {
            answers.add(threads.submit(() -> store.admit(fence)));
        }
        Thread.sleep(300); // the others are waiting for the first call by now
        firstCallMayEnd.countDown();
        return answers;
    }

    @Test
    void one_claim_the_others_continue_with_fewer_calls() throws Exception {
        ResourceName resource = ResourceName.of("account:" + UUID.randomUUID());
        HighWaterStore store = CoalescingHighWaterStore.of(slow);
        List<Future<Admission>> answers = admitTogether(store, fence(resource, 7));
        List<Outcome> outcomes = new ArrayList<>();
        for (Future<Admission> answer : answers) {
            Admission admission = answer.get(10, TimeUnit.SECONDS);
            assertThat(admission.presented()).isEqualTo(fence(resource, 7));
            assertThat(admission.highWater()).isEqualTo(FencingToken.of(7));
            outcomes.add(admission.outcome());
        }
        assertThat(outcomes).filteredOn(o -> o == Outcome.CLAIMED).hasSize(1);
        assertThat(outcomes).filteredOn(o -> o == Outcome.CONTINUED).hasSize(REQUESTS - 1);
        assertThat(calls.get()).as("store calls for %d requests", REQUESTS).isLessThan(REQUESTS);
        // Alone again: each request its own call; the rule holds through it.
        assertThat(store.admit(fence(resource, 6)).outcome()).isEqualTo(Outcome.STALE);
        assertThat(store.admit(fence(resource, 8)).outcome()).isEqualTo(Outcome.CLAIMED);
    }

    @Test
    void a_stale_fence_is_stale_for_all_and_a_failed_call_fails_its_whole_group() throws Exception {
        ResourceName resource = ResourceName.of("account:" + UUID.randomUUID());
        memory.admit(fence(resource, 9));
        HighWaterStore store = CoalescingHighWaterStore.of(slow);
        for (Future<Admission> answer : admitTogether(store, fence(resource, 3))) {
            assertThat(answer.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.STALE);
        }

        failure = new IllegalStateException("store down");
        int before = calls.get();
        List<Future<Admission>> answers = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            answers.add(threads.submit(() -> store.admit(fence(resource, 10))));
        }
        for (Future<Admission> answer : answers) {
            assertThat(answer).failsWithin(10, TimeUnit.SECONDS).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withCauseInstanceOf(IllegalStateException.class).withMessageContaining("store down");
        }
        assertThat(calls.get() - before).isBetween(1, REQUESTS);
        failure = null;
        assertThat(memory.admit(fence(resource, 9)).outcome()).as("the failed calls changed nothing").isEqualTo(Outcome.CONTINUED);
    }

    /** A request cancelled while waiting for its group's turn (its thread interrupted) still serves the group. */
    @Test
    void an_interrupted_caller_still_makes_its_groups_call() throws Exception {
        ResourceName resource = ResourceName.of("account:" + UUID.randomUUID());
        HighWaterStore store = CoalescingHighWaterStore.of(slow);
        Future<Admission> first = threads.submit(() -> store.admit(fence(resource, 4)));
        while (calls.get() == 0) {
            Thread.sleep(1);
        }
        Thread[] caller = new Thread[1];
        Future<Admission> second = threads.submit(() -> {
            caller[0] = Thread.currentThread();
            return store.admit(fence(resource, 4));
        });
        Thread.sleep(200);
        Future<Admission> third = threads.submit(() -> store.admit(fence(resource, 4)));
        Thread.sleep(200);
        caller[0].interrupt();
        Thread.sleep(100);
        firstCallMayEnd.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.CLAIMED);
        assertThat(second.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(third.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Outcome.CONTINUED);
        assertThat(calls.get()).isEqualTo(2);
        // and the lane is free again
        assertThat(store.admit(fence(resource, 5)).outcome()).isEqualTo(Outcome.CLAIMED);
    }

    @Test
    void keeps_the_signed_admissions_and_the_backend_of_its_store() {
        HighWaterStore plain = CoalescingHighWaterStore.of(memory);
        assertThat(plain).isNotInstanceOf(SignedAdmissionStore.class);
        assertThat(plain.backend()).isSameAs(memory);
        assertThat(CoalescingHighWaterStore.of(plain)).isSameAs(plain);
    }

    /** The in-memory store as a signed one whose first call is held like {@link #slow}'s; counts its calls. */
    private final AtomicInteger signedCalls = new AtomicInteger();
    private final SignedAdmissionStore slowSigned = new SignedAdmissionStore() {
        @Override
        public Admission admit(Fence presented) {
            return slow.admit(presented);
        }

        @Override
        public java.util.Optional<Admission> admit(Fence presented, String nonce, java.time.Instant expires) {
            return admitEach(presented, List.of(new Nonce(nonce, expires))).get(0);
        }

        @Override
        public List<java.util.Optional<Admission>> admitEach(Fence presented, List<Nonce> nonces) {
            signedCalls.incrementAndGet();
            List<Boolean> fresh = new ArrayList<>();
            for (Nonce nonce : nonces) {
                fresh.add(memory.firstUse(nonce.value(), nonce.expires()));
            }
            return SignedAdmissionStore.groupAnswers(fresh, fresh.contains(true) ? slow.admit(presented) : null);
        }
    };

    @Test
    void request_signed_admissions_of_one_fence_share_calls_and_each_nonce_counts_once() throws Exception {
        ResourceName resource = ResourceName.of("account:" + UUID.randomUUID());
        SignedAdmissionStore store = (SignedAdmissionStore) CoalescingHighWaterStore.of(slowSigned);
        java.time.Instant expires = java.time.Instant.now().plusSeconds(60);
        memory.firstUse("used-before", expires);
        List<Future<java.util.Optional<Admission>>> answers = new ArrayList<>();
        answers.add(threads.submit(() -> store.admit(fence(resource, 7), "n-0", expires)));
        while (calls.get() == 0) {
            Thread.sleep(1);
        }
        for (int i = 1; i < REQUESTS; i++) {
            String nonce = i == REQUESTS - 1 ? "used-before" : i == REQUESTS - 2 ? "n-1" : "n-" + i;
            answers.add(threads.submit(() -> store.admit(fence(resource, 7), nonce, expires)));
        }
        Thread.sleep(300); // the others are waiting for the first call by now
        firstCallMayEnd.countDown();
        List<Outcome> outcomes = new ArrayList<>();
        int replayed = 0;
        for (Future<java.util.Optional<Admission>> answer : answers) {
            java.util.Optional<Admission> admission = answer.get(10, TimeUnit.SECONDS);
            if (admission.isEmpty()) {
                replayed++;
            } else {
                assertThat(admission.get().highWater()).isEqualTo(FencingToken.of(7));
                outcomes.add(admission.get().outcome());
            }
        }
        assertThat(replayed).as("a nonce used before, and n-1 sent twice").isEqualTo(2);
        assertThat(outcomes).filteredOn(o -> o == Outcome.CLAIMED).hasSize(1);
        assertThat(outcomes).filteredOn(o -> o == Outcome.CONTINUED).hasSize(REQUESTS - 3);
        assertThat(signedCalls.get()).as("store calls for %d request-signed admissions", REQUESTS).isEqualTo(2);
        assertThat(store.admit(fence(resource, 7), "n-2", expires)).as("a nonce of the group, again").isEmpty();
        assertThat(store.admit(fence(resource, 6), "n-new", expires).orElseThrow().outcome()).isEqualTo(Outcome.STALE);
    }

    @Test
    void a_failed_signed_call_fails_its_whole_group() throws Exception {
        ResourceName resource = ResourceName.of("account:" + UUID.randomUUID());
        SignedAdmissionStore store = (SignedAdmissionStore) CoalescingHighWaterStore.of(slowSigned);
        java.time.Instant expires = java.time.Instant.now().plusSeconds(60);
        failure = new IllegalStateException("store down");
        List<Future<java.util.Optional<Admission>>> answers = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            String nonce = "f-" + i;
            answers.add(threads.submit(() -> store.admit(fence(resource, 3), nonce, expires)));
        }
        Thread.sleep(300);
        firstCallMayEnd.countDown();
        for (Future<java.util.Optional<Admission>> answer : answers) {
            assertThat(answer).failsWithin(10, TimeUnit.SECONDS).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withCauseInstanceOf(IllegalStateException.class).withMessageContaining("store down");
        }
        failure = null;
        assertThat(memory.admit(fence(resource, 1)).outcome()).as("the failed calls set no mark").isEqualTo(Outcome.CLAIMED);
    }
}
