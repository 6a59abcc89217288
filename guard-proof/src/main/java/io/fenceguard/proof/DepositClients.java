package io.fenceguard.proof;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Clients depositing through HTTP, as the example's own clients do, each on its own instance and on to the next
 * when that one does not answer. Every deposit has an amount no other deposit has, so the audit trail says which
 * deposit each entry is; a deposit is acknowledged by a 200 and otherwise its outcome is unknown.
 */
final class DepositClients {

    /** Amounts unique across every round of a run. */
    private static final AtomicLong NEXT_AMOUNT = new AtomicLong(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final LongAdder sent = new LongAdder();
    private final LongAdder acknowledgedCount = new LongAdder();
    private final Map<String, LongAdder> answers = new ConcurrentHashMap<>();

    private DepositClients() {
    }

    static DepositClients start(List<ExampleInstance> instances, int clients, Map<String, Set<Long>> attempted,
            Map<String, Set<Long>> acknowledged, int round) {
        DepositClients load = new DepositClients();
        List<String> accounts = List.copyOf(attempted.keySet());
        for (int c = 0; c < clients; c++) {
            int first = c % instances.size();
            Thread thread = new Thread(() -> load.loop(instances, first, accounts, attempted, acknowledged),
                    "deposits-" + round + "-" + c);
            thread.setDaemon(true);
            thread.start();
            load.threads.add(thread);
        }
        return load;
    }

    private void loop(List<ExampleInstance> instances, int first, List<String> accounts,
            Map<String, Set<Long>> attempted, Map<String, Set<Long>> acknowledged) {
        int at = first;
        while (running.get()) {
            String account = accounts.get(ThreadLocalRandom.current().nextInt(accounts.size()));
            String answer;
            try {
                answer = deposit(instances.get(at), account, 0, attempted, acknowledged);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (answer.equals(NO_ANSWER)) {
                at = (at + 1) % instances.size();   // this instance is down or paused: the next one
                pause(200);
            } else if (answer.startsWith("5")) {
                pause(100);   // a server-side failure (a store restarting): no tight loop against it
            }
        }
    }

    private static final String NO_ANSWER = "no answer";

    /**
     * One deposit of a new amount to {@code account} on {@code instance}, paused {@code pauseMs} between its read and
     * its write (the example's chaos pause; 0: none), counted with this load's; returns its answer.
     */
    String deposit(ExampleInstance instance, String account, long pauseMs, Map<String, Set<Long>> attempted,
            Map<String, Set<Long>> acknowledged) throws InterruptedException {
        long amount = NEXT_AMOUNT.getAndIncrement();
        attempted.get(account).add(amount);
        sent.increment();
        String answer;
        try {
            HttpResponse<String> response = instance.send("POST", "/accounts/" + account + "/deposits",
                    "{\"amount\":" + amount + (pauseMs > 0 ? ",\"pauseMs\":" + pauseMs : "") + "}",
                    TIMEOUT.plusMillis(pauseMs));
            answer = String.valueOf(response.statusCode());
            if (response.statusCode() == 200) {
                acknowledged.get(account).add(amount);
                acknowledgedCount.increment();
            }
        } catch (IOException down) {
            answer = NO_ANSWER;
        }
        answers.computeIfAbsent(answer, a -> new LongAdder()).increment();
        return answer;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops sending and waits for the deposits under way (each bounded by the request timeout). */
    void stop() throws InterruptedException {
        running.set(false);
        for (Thread thread : threads) {
            thread.join(TIMEOUT.plusSeconds(5).toMillis());
        }
    }

    long sent() {
        return sent.sum();
    }

    long acknowledged() {
        return acknowledgedCount.sum();
    }

    Map<String, Long> answers() {
        Map<String, Long> copy = new ConcurrentHashMap<>();
        answers.forEach((answer, count) -> copy.put(answer, count.sum()));
        return copy;
    }
}
