package io.fenceguard.docs.stores;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.redis.RedisReadWriteLeaseProvider;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.TestRedisson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** Shared then exclusive leases on the test Redis: the writer's token is above the reader's. */
class SharedLeasesSampleTest {

    private final List<Long> rendered = new ArrayList<>();
    private final List<Long> updated = new ArrayList<>();

    void render(FencingToken token) {
        rendered.add(token.value());
    }

    void update(String report) {
        updated.add(LeaseContext.requireValid().token().value());
    }

    void readThenWrite(RedissonClient redisson) {
        // tag::shared-leases[]
        LeaseManager guard = LeaseManager.of(RedisReadWriteLeaseProvider.of(RedissonScriptClient.of(redisson)));   // or ZooKeeperLeaseProvider.of(curator)

        try (Lease read = guard.acquireShared("report:7", Duration.ofSeconds(5))) {     // many readers at once
            render(read.token());
        }
        try (Lease write = guard.acquire("report:7", Duration.ofSeconds(5));            // alone
             LeaseContext.Scope scope = LeaseContext.bind(write)) {
            update("report:7");                                                         // fenced as usual
        }
        // end::shared-leases[]
        guard.close();
        guard.provider().close();
    }

    @Test
    void theWritersTokenIsAboveTheReaders() {
        readThenWrite(TestRedisson.shared());
        assertThat(rendered).hasSize(1);
        assertThat(updated).hasSize(1);
        assertThat(updated.get(0)).isGreaterThan(rendered.get(0));
    }
}
