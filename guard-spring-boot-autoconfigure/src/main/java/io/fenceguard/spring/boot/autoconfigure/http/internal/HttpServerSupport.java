package io.fenceguard.spring.boot.autoconfigure.http.internal;

import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.IssuedTokens;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpProperties;
import io.fenceguard.spring.boot.autoconfigure.http.HttpFencingConfigurationException;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;

/**
 * What the server-side configurations of HTTP fencing (the servlet one, the WebFlux one, the messaging one) share:
 * the store chosen by {@code fenceguard.http.store.*}, the signing-key check, and the condition "the application
 * has fenced endpoints". Not API: this module's own, in a package it does not export.
 */
public final class HttpServerSupport {

    private HttpServerSupport() {
    }

    /** The high-water store of {@code fenceguard.http.store.type}. */
    public static HighWaterStore highWaterStore(FenceguardHttpProperties properties, BeanFactory beans,
                                                TokenBound bound) {
        return HighWaterStores.create(properties.getStore(), beans, bound);
    }

    /** The ceiling of admitted clock-floor tokens: this clock plus {@code fenceguard.http.server.max-token-skew}. */
    public static TokenBound tokenBound(FenceguardHttpProperties properties) {
        return TokenBound.clockFloor(java.time.Clock.systemUTC(), properties.getServer().getMaxTokenSkew());
    }

    /**
     * The default ceiling of admitted tokens, from the tokens this application's Redis provider mints: on a durable
     * epoch ({@code fenceguard.redis.token-epoch}, a DataSource present by default) {@link TokenBound#epochs} on the
     * same source, else the clock floor of {@link #tokenBound(FenceguardHttpProperties)}.
     */
    public static TokenBound tokenBound(FenceguardHttpProperties properties, BeanFactory beans) {
        if (ClassUtils.isPresent("io.fenceguard.redis.TokenEpochSource", HttpServerSupport.class.getClassLoader())) {
            TokenBound epochs = RedisEpochBound.of(beans);
            if (epochs != null) {
                return epochs;
            }
        }
        return tokenBound(properties);
    }

    /**
     * {@code fence} setting back marks that the lock store never minted ({@link InboundFence#withIssuedTokens}) when
     * {@link #issuedTokens} finds what the store minted; {@code fence} as it is otherwise.
     */
    public static InboundFence withIssuedTokens(InboundFence fence, BeanFactory beans) {
        IssuedTokens issued = issuedTokens(beans);
        if (issued == null) {
            return fence;
        }
        LoggerFactory.getLogger(HttpServerSupport.class).info("fenceguard: a fencing mark above every token {} "
                + "tells for its resource is set back at the first refusal of a holder", issued);
        return fence.withIssuedTokens(issued);
    }

    /**
     * What the lock store minted per resource: the IssuedTokens bean, else this application's Redis lease provider's
     * counters ({@code RedisIssuedTokens}); {@code null} without either.
     */
    public static IssuedTokens issuedTokens(BeanFactory beans) {
        IssuedTokens bean = beans.getBeanProvider(IssuedTokens.class).getIfAvailable();
        if (bean != null
                || !ClassUtils.isPresent("io.fenceguard.redis.RedisIssuedTokens", HttpServerSupport.class.getClassLoader())) {
            return bean;
        }
        return RedisMintedTokens.of(beans);
    }

    /** Loaded only with fenceguard-redis on the class path. */
    private static final class RedisMintedTokens {
        static IssuedTokens of(BeanFactory beans) {
            io.fenceguard.redis.RedisLeaseProvider provider =
                    beans.getBeanProvider(io.fenceguard.redis.RedisLeaseProvider.class).getIfUnique();
            io.fenceguard.redis.RedisScriptClient client =
                    beans.getBeanProvider(io.fenceguard.redis.RedisScriptClient.class).getIfUnique();
            return provider == null || client == null ? null
                    : io.fenceguard.redis.RedisIssuedTokens.of(client, provider.config());
        }
    }

    /** Loaded only with fenceguard-redis on the class path. */
    private static final class RedisEpochBound {
        static TokenBound of(BeanFactory beans) {
            io.fenceguard.redis.TokenEpochSource source;
            try {
                source = io.fenceguard.spring.boot.autoconfigure.redis.internal.RedisTokenEpochs.resolve(beans);
            } catch (IllegalStateException e) {
                return null; // token-epoch=database without a DataSource: the Redis provider or store says so itself
            }
            if (source == null) {
                return null;
            }
            try {
                source.highestEpoch();
            } catch (UnsupportedOperationException e) {
                throw new IllegalStateException("the token epoch source " + source + " cannot tell its highest epoch, "
                        + "which bounds the tokens admitted over HTTP and from messages: define a TokenBound bean", e);
            } catch (RuntimeException e) {
                // not reachable now: the bound reads it again at the first request
            }
            return TokenBound.epochs(source::highestEpoch);
        }
    }

    /**
     * {@code fence} verifying request signatures when {@code fenceguard.http.signing.mode} is request (the default)
     * and there are keys, with their nonces in the {@link NonceStore} bean or else in the high-water store's
     * backend; required unless compact or unsigned headers are accepted. The servlet and the WebFlux filter alike.
     */
    public static InboundFence withConfiguredSignatures(InboundFence fence, FenceguardHttpProperties properties,
            SigningKeys keys, HighWaterStore store, ObjectProvider<NonceStore> nonceStores) {
        if (!HttpSigning.verifiesRequests(keys, properties.getSigning())) {
            return fence;
        }
        NonceStore nonces = nonceStores.getIfUnique(() -> store.backend() instanceof NonceStore own ? own : null);
        if (nonces == null) {
            throw new HttpFencingConfigurationException(HttpSigning.MODE + "=request needs a nonce store, and the "
                    + "high-water store " + store + " is none.", "Use a store of fenceguard (memory, jdbc or redis) or "
                    + "define a NonceStore bean.");
        }
        return fence.withRequestSignatures(nonces, HttpSigning.requestSignaturesRequired(properties.getSigning()));
    }

    /**
     * Fails start-up when {@code fenceguard.http.signing.mode=request} is configured for a server that verifies
     * only compact signatures: admitting compact headers there would be weaker than configured. When request is
     * only the default, the server admits compact headers with a warning.
     */
    public static void requireCompactSignatures(FenceguardHttpProperties properties, String server) {
        FenceguardHttpProperties.Signing signing = properties.getSigning();
        if (signing.getMode() == FenceguardHttpProperties.SignatureMode.REQUEST && !signing.modeConfigured()) {
            // request is the default, which this server cannot verify: it stays compact, and says so.
            org.slf4j.LoggerFactory.getLogger(HttpServerSupport.class).warn("fenceguard: {} verifies compact "
                    + "signatures only: its fenced endpoints admit compact-signed headers, which are usable for any "
                    + "request to the resource while their token is current; set {}.signing.mode=compact to say so",
                    server, FenceguardHttpProperties.PREFIX);
            return;
        }
        if (signing.getMode() == FenceguardHttpProperties.SignatureMode.REQUEST) {
            throw new HttpFencingConfigurationException(server + " verifies compact signatures only, but "
                    + FenceguardHttpProperties.PREFIX + ".signing.mode is request.",
                    "Set " + FenceguardHttpProperties.PREFIX + ".signing.mode=compact for this application, or "
                            + "serve its fenced endpoints with the servlet filter.");
        }
    }

    /**
     * The high-water store of {@code fenceguard.http.store.type}, bounded by the TokenBound bean or else by
     * {@link #tokenBound(FenceguardHttpProperties, BeanFactory)}.
     */
    public static HighWaterStore highWaterStore(FenceguardHttpProperties properties, BeanFactory beans) {
        TokenBound bound = beans.getBeanProvider(TokenBound.class).getIfAvailable(() -> tokenBound(properties, beans));
        return HighWaterStores.create(properties.getStore(), beans, bound);
    }

    /**
     * Where {@code fenceguard.http.server.idempotency=true} keeps the keys: the backend of {@code fence}'s store.
     * Fails start-up (with a failure analysis) when that store keeps none.
     */
    public static IdempotencyStore idempotency(InboundFence fence) {
        IdempotencyStore idempotency = HighWaterStores.idempotency(fence.store().backend());
        if (idempotency == null) {
            throw new HttpFencingConfigurationException(FenceguardHttpProperties.PREFIX + ".server.idempotency=true "
                    + "needs a store that records idempotency keys, and " + fence.store() + " does not.",
                    "Use the memory, jdbc or redis store, or set " + FenceguardHttpProperties.PREFIX
                            + ".server.idempotency=false.");
        }
        return idempotency;
    }

    /** Fails start-up (with a failure analysis) when fenced endpoints would need keys and none are configured. */
    public static void requireKeysForServer(SigningKeys keys, FenceguardHttpProperties properties) {
        HttpSigning.requireForServer(keys, properties.getSigning());
    }

    /** Matches when the application has fenced endpoints (routes, {@code @FencedEndpoint} methods, an InboundFence bean). */
    public static class OnFencedEndpoints extends OnFencedEndpointsCondition {
    }
}
