package io.fenceguard.jdbc.internal;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Plans by SQL string, bounded. A hit is one hash lookup; past the bound an arbitrary tenth is
 * dropped, which is enough for caches of SQL text (a working set far below the bound, or a leak of
 * literal-laden strings that no policy would save).
 */
final class PlanCache {

    private final ConcurrentHashMap<String, RewritePlan> plans = new ConcurrentHashMap<>();
    private final int maxSize;

    PlanCache(int maxSize) {
        this.maxSize = maxSize;
    }

    RewritePlan get(String sql, Function<String, RewritePlan> planner) {
        RewritePlan plan = plans.get(sql);
        if (plan != null) {
            return plan;
        }
        plan = planner.apply(sql);
        if (plans.size() >= maxSize) {
            evict(maxSize / 10 + 1);
        }
        RewritePlan raced = plans.putIfAbsent(sql, plan);
        return raced != null ? raced : plan;
    }

    void clear() {
        plans.clear();
    }

    int size() {
        return plans.size();
    }

    private void evict(int count) {
        Iterator<String> keys = plans.keySet().iterator();
        for (int i = 0; i < count && keys.hasNext(); i++) {
            keys.next();
            keys.remove();
        }
    }
}
