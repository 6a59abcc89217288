package io.fenceguard.reactor.webflux;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;

/** Header values for tests. */
final class FenceHeaders {

    private FenceHeaders() {
    }

    static String unsigned(String resource, long token) {
        return FenceHeader.of(new Fence(ResourceName.of(resource), FencingToken.of(token))).value();
    }
}
