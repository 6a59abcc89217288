package io.fenceguard.core.spi;

import java.util.Objects;

/** One lease to renew in {@link LeaseProvider#renewAll}: what was asked for and what the store granted. */
public record Renewal(LeaseRequest request, Grant grant) {

    public Renewal {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(grant, "grant");
    }
}
