package io.fenceguard.docs.concepts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.LeaseProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The three forms of taking a lease, run on the in-memory store: each write sees a greater token. */
class LeaseFormsSampleTest {

    static long run(LeaseProvider provider, Ledger dao) {
        // tag::lease-forms[]
        LeaseManager guard = LeaseManager.of(provider);   // any store: Redis, ZooKeeper, a table, in memory

        // blocking, with a wait timeout (LeaseTimeoutException when not obtained in time)
        try (Lease lease = guard.acquire("account:42", Duration.ofSeconds(5));
             LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            dao.debit("42", 100);                                      // the layers below see lease.token()
        }

        // try once
        guard.tryAcquire("account:42").ifPresent(lease -> {
            try (lease; LeaseContext.Scope scope = LeaseContext.bind(lease)) {
                dao.debit("42", 1);
            }
        });

        // a callback under a lease, bound to this thread and always released and unbound afterwards
        long balance = guard.callWithLease("account:42", Duration.ofSeconds(5), lease -> dao.balance("42"));
        // end::lease-forms[]
        guard.close();
        return balance;
    }

    @Test
    void eachFormHoldsTheLeaseWithAGreaterToken() {
        Ledger dao = new Ledger();
        try (InMemoryLeaseProvider provider = InMemoryLeaseProvider.create()) {
            assertThat(run(provider, dao)).isEqualTo(-101);
        }
        assertThat(dao.tokens).hasSize(2);
        assertThat(dao.tokens.get(1)).isGreaterThan(dao.tokens.get(0));
        assertThat(LeaseContext.current()).isEmpty();
    }
}
