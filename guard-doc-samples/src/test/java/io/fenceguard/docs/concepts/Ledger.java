package io.fenceguard.docs.concepts;

import io.fenceguard.core.LeaseContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** What the concept samples write to: balances in memory, and the token each write ran under. */
class Ledger {

    private final ConcurrentMap<String, Long> balances = new ConcurrentHashMap<>();
    final List<Long> tokens = new ArrayList<>();

    void debit(String id, long amount) {
        tokens.add(LeaseContext.requireValid().token().value());   // what the layers below read
        balances.merge(id, -amount, Long::sum);
    }

    long balance(String id) {
        LeaseContext.requireValid();
        return balances.getOrDefault(id, 0L);
    }
}
