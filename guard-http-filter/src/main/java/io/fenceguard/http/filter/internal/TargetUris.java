package io.fenceguard.http.filter.internal;

import java.net.URI;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The target URIs of recent request-signed requests, by their text: a request to a URI seen lately gets the same
 * {@link URI} without parsing its text again ({@code URI.create} was about a fifth of the filter's check of a signed
 * request). A small table indexed by the text's hash, each slot holding the last URI that fell on it: at most
 * {@value #SLOTS} entries, whatever the requests, and a text that misses is parsed as before. A hit is a URI made from
 * an equal text, so the request's URI is the one {@code URI.create} would have made.
 */
public final class TargetUris {

    private static final int SLOTS = 64;

    /** The URI and the text it was made from (its {@code toString()} is that text). */
    private record Entry(String text, URI uri) {
    }

    /** Read and written without a lock: an entry is immutable, published by the release write to its slot. */
    private final AtomicReferenceArray<Entry> slots = new AtomicReferenceArray<>(SLOTS);

    /** {@code URI.create(text)}, reused when a request to the same text came lately. */
    public URI of(String text) {
        int hash = text.hashCode();
        int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
        Entry entry = slots.getAcquire(slot);
        if (entry != null && entry.text().equals(text)) {
            return entry.uri();
        }
        URI uri = URI.create(text);
        slots.setRelease(slot, new Entry(text, uri));
        return uri;
    }
}
