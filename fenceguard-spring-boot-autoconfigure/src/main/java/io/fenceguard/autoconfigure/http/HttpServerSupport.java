package io.fenceguard.autoconfigure.http;

import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.admission.TokenBound;
import org.springframework.beans.factory.BeanFactory;

/**
 * What a server-side configuration of HTTP fencing outside this package needs from it (the WebFlux
 * one): the store chosen by {@code fenceguard.http.store.*}, the signing-key check, and the condition
 * "the application has fenced endpoints".
 */
public final class HttpServerSupport {

    private HttpServerSupport() {
    }

    /** The high-water store of {@code fenceguard.http.store.type}. */
    public static HighWaterStore highWaterStore(FenceguardHttpProperties properties, BeanFactory beans,
                                                TokenBound bound) {
        return HighWaterStores.create(properties.getStore(), beans, bound);
    }

    /** The default ceiling of admitted tokens: the clock floor plus {@code fenceguard.http.server.max-token-skew}. */
    public static TokenBound tokenBound(FenceguardHttpProperties properties) {
        return TokenBound.clockFloor(java.time.Clock.systemUTC(), properties.getServer().getMaxTokenSkew());
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
     * the clock floor of {@code fenceguard.http.server.max-token-skew}.
     */
    public static HighWaterStore highWaterStore(FenceguardHttpProperties properties, BeanFactory beans) {
        TokenBound bound = beans.getBeanProvider(TokenBound.class).getIfAvailable(() -> tokenBound(properties));
        return HighWaterStores.create(properties.getStore(), beans, bound);
    }

    /** Fails start-up (with a failure analysis) when fenced endpoints would need keys and none are configured. */
    public static void requireKeysForServer(SigningKeys keys, FenceguardHttpProperties properties) {
        HttpSigning.requireForServer(keys, properties.getSigning());
    }

    /** Matches when the application has fenced endpoints (routes, {@code @FencedEndpoint} methods, an InboundFence bean). */
    public static class OnFencedEndpoints extends OnFencedEndpointsCondition {
    }
}
