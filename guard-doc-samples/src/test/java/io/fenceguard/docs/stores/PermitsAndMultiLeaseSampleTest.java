package io.fenceguard.docs.stores;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.MultiLease;
import io.fenceguard.core.PermitFencing;
import io.fenceguard.core.ResourceName;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A permit of a semaphore and a multi-resource lease, as the lock-stores guide shows them; on the in-memory store. */
class PermitsAndMultiLeaseSampleTest {

    private final List<String> written = new ArrayList<>();

    void export(String slot) {
        written.add(slot + "@" + LeaseContext.requireValid().token());
    }

    void debit(String account, long amount) {
        written.add(account + "@" + LeaseContext.requireValid().token());
    }

    void credit(String account, long amount) {
        written.add(account + "@" + LeaseContext.requireValid().token());
    }

    void permitsAndMultiLease(LeaseManager guard) {
        // tag::permits-and-multi-lease[]
        // At most 3 exports at once; the permit is a lease on one slot, exports#0 to exports#2, with its own token.
        try (Lease permit = guard.acquirePermit("exports", 3, Duration.ofSeconds(5));
             LeaseContext.Scope scope = LeaseContext.bind(permit)) {
            export(permit.resource().value());                  // fenced with the slot's token
        }
        // Or with tokens from one counter of the resource, checked against its single high-water mark.
        try (Lease permit = guard.acquirePermit(ResourceName.of("exports"), 3, PermitFencing.PER_RESOURCE,
                Duration.ofSeconds(5))) {
            assertThat(permit.resource().value()).isEqualTo("exports");
        }

        // Both accounts or neither, whatever order they are named in; each written with its own token.
        try (MultiLease both = guard.acquireAll(List.of("account:42", "account:7"), Duration.ofSeconds(5))) {
            try (LeaseContext.Scope scope = LeaseContext.bind(both.lease("account:7"))) {
                debit("7", 100);
            }
            try (LeaseContext.Scope scope = LeaseContext.bind(both.lease("account:42"))) {
                credit("42", 100);
            }
        }
        // end::permits-and-multi-lease[]
    }

    @Test
    void eachWriteCarriesTheTokenOfWhatItWrites() {
        try (LeaseManager guard = LeaseManager.of(InMemoryLeaseProvider.create())) {
            permitsAndMultiLease(guard);
        }
        assertThat(written).hasSize(3);
        assertThat(written.get(0)).startsWith("exports#");
        assertThat(written.get(1)).startsWith("7@");
        assertThat(written.get(2)).startsWith("42@");
    }
}
