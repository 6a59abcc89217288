package io.fenceguard.spring.boot.autoconfigure.observation;

import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.spring.boot.autoconfigure.core.LeaseStoreHealth;
import io.fenceguard.core.Fence;
import io.fenceguard.core.spi.LeaseProvider;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;

/**
 * The high-water stores in the {@code fenceguard} health: each is asked to admit token 1 on the reserved
 * resource {@code fenceguard:health} (any answer means it can decide; the mark never moves past the
 * greatest token presented, so this changes nothing for real resources). A store that throws sets the
 * health down: HTTP and message admission fail closed while it does.
 */
public class HighWaterStoreHealth implements LeaseStoreHealth {

    static final Fence PROBE = Fence.of("fenceguard:health", "1");

    private final ObjectProvider<HighWaterStore> stores;

    public HighWaterStoreHealth(ObjectProvider<HighWaterStore> stores) {
        this.stores = stores;
    }

    @Override
    public void contribute(LeaseProvider provider, Health.Builder builder) {
        List<HighWaterStore> all = stores.orderedStream().toList();
        for (int i = 0; i < all.size(); i++) {
            HighWaterStore store = all.get(i);
            String key = all.size() == 1 ? "highWaterStore" : "highWaterStore" + (i + 1);
            try {
                store.admit(PROBE);
                builder.withDetail(key, store.toString());
            } catch (RuntimeException e) {
                builder.down().withDetail(key, store + " cannot answer: " + e);
            }
        }
    }
}
