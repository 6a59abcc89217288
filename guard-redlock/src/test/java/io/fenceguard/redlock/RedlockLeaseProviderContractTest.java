package io.fenceguard.redlock;

import io.fenceguard.core.Lease;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.redlock.internal.RedlockKeys;
import io.fenceguard.test.contract.LeaseProviderContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.redisson.api.RedissonClient;

/** The Redlock provider passes the contract every provider passes, on three masters of its own. */
class RedlockLeaseProviderContractTest extends LeaseProviderContract {

    static final RedlockLeaseConfig CONFIG = RedlockLeaseConfig.builder().masterTimeout(Duration.ofMillis(300)).build();

    private static RedisMasters masters;

    @BeforeAll
    static void startMasters() {
        masters = RedisMasters.start(3);
    }

    @AfterAll
    static void stopMasters() {
        if (masters != null) {
            masters.close();
        }
    }

    @Override
    protected LeaseProvider createProvider() {
        return RedlockLeaseProvider.of(masters.clients(), CONFIG);
    }

    /** The lock vanishes from every master, as when it expires there. */
    @Override
    protected boolean forget(ResourceName resource, Lease lease) {
        String lock = RedlockKeys.of(CONFIG.keyPrefix(), resource).lock();
        long deleted = 0;
        for (RedissonClient m : masters.clients()) {
            deleted += m.getKeys().delete(lock);
        }
        return deleted == masters.size();
    }
}
