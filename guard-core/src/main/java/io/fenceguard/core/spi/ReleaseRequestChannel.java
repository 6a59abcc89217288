package io.fenceguard.core.spi;

import io.fenceguard.core.ResourceName;
import java.util.function.Consumer;

/**
 * Carries requests to release a lease between processes, through the lock store ({@link LeaseProvider#releaseRequests()}).
 * A store without one leaves the requests to each {@code LeaseManager}: they reach the holders of that manager only.
 */
public interface ReleaseRequestChannel {

    /**
     * Asks every holder of {@code resource} that listens, in any process, to release it.
     *
     * @return whether the store holds a lock on {@code resource} now (someone was there to be asked)
     * @throws io.fenceguard.core.LeaseUnavailableException when the store cannot be used
     */
    boolean send(ResourceName resource, String reason);

    /**
     * Calls {@code onRequest} with the reason of each request for {@code resource} sent from now on, on a thread of
     * the store's client (it must not block), until the returned handle is closed.
     */
    AutoCloseable listen(ResourceName resource, Consumer<String> onRequest);
}
