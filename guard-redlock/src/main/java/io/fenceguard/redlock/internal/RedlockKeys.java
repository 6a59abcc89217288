package io.fenceguard.redlock.internal;

import io.fenceguard.core.ResourceName;

/** The keys of one resource on every master; the resource is their hash tag, so a master may be a Cluster. */
public record RedlockKeys(String lock, String token) {

    public static RedlockKeys of(String prefix, ResourceName resource) {
        String base = prefix + "{" + resource.value() + "}:";
        return new RedlockKeys(base + "lock", base + "token");
    }
}
