package io.fenceguard.jdbc.internal.sql;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Plans by SQL string, bounded. A hit is one hash lookup; past the bound an arbitrary tenth is
 * dropped, which is enough for caches of SQL text (a working set far below the bound, or a leak of
 * literal-laden strings that no policy would save).
 */
public final class PlanCache {

    private final ConcurrentHashMap<String, StatementPlan> plans = new ConcurrentHashMap<>();
    private final int maxSize;

    public PlanCache(int maxSize) {
        this.maxSize = maxSize;
    }

    public StatementPlan get(String sql, Function<String, StatementPlan> planner) {
        StatementPlan plan = plans.get(sql);
        if (plan != null) {
            return plan;
        }
        plan = planner.apply(sql);
        if (plans.size() >= maxSize) {
            evict(maxSize / 10 + 1);
        }
        StatementPlan raced = plans.putIfAbsent(sql, plan);
        return raced != null ? raced : plan;
    }

    public void clear() {
        plans.clear();
    }

    public int size() {
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
