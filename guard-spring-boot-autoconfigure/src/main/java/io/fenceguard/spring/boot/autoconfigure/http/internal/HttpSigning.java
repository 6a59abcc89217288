package io.fenceguard.spring.boot.autoconfigure.http.internal;

import io.fenceguard.admission.SigningKeys;
import io.fenceguard.spring.boot.autoconfigure.http.FenceguardHttpProperties;
import io.fenceguard.spring.boot.autoconfigure.http.HttpFencingConfigurationException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/** The signing keys from {@code fenceguard.http.signing.*}, and the checks each side needs of them. */
public final class HttpSigning {

    public static final String KEYS = FenceguardHttpProperties.PREFIX + ".signing.keys";
    public static final String ACTIVE_KEY = FenceguardHttpProperties.PREFIX + ".signing.active-key";
    public static final String REQUIRED = FenceguardHttpProperties.PREFIX + ".signing.required";
    public static final String MODE = FenceguardHttpProperties.PREFIX + ".signing.mode";
    public static final String ACCEPT_COMPACT = FenceguardHttpProperties.PREFIX + ".signing.accept-compact";
    public static final String DEMO_KEYS = FenceguardHttpProperties.PREFIX + ".signing.demo-keys";
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(HttpSigning.class);
    private static final String KEY_FORMAT = "at least 32 random bytes in base64, e.g. from 'openssl rand -base64 32'";

    private HttpSigning() {
    }

    /**
     * The configured keys: none when there are none; signing with the active key, or with the only key
     * when there is one; accepting unsigned headers when signatures are not required.
     */
    public static SigningKeys keys(FenceguardHttpProperties.Signing signing) {
        Map<String, String> configured = signing.getKeys();
        if (!signing.getDemoKeys().isEmpty()) {
            if (!configured.isEmpty()) {
                throw new HttpFencingConfigurationException(DEMO_KEYS + " " + signing.getDemoKeys().keySet()
                        + " are public demonstration keys and are never accepted next to configured keys "
                        + configured.keySet() + ".", "Remove " + DEMO_KEYS + " (for the example service: run without "
                        + "the demo profile) and keep only your own " + KEYS + ".");
            }
            log.warn("fenceguard: signing with the public demonstration keys {} ({}): anyone can sign tokens this "
                    + "application accepts; configure {} of your own outside a demo", signing.getDemoKeys().keySet(),
                    DEMO_KEYS, KEYS);
            configured = signing.getDemoKeys();
        }
        if (configured.isEmpty()) {
            return SigningKeys.none();
        }
        Map<String, byte[]> secrets = new LinkedHashMap<>();
        configured.forEach((id, text) -> secrets.put(id, decode(id, text)));
        String active = signing.getActiveKey() != null ? signing.getActiveKey()
                : secrets.size() == 1 ? secrets.keySet().iterator().next() : null;
        SigningKeys keys;
        try {
            keys = SigningKeys.of(secrets, active);
        } catch (IllegalArgumentException e) {
            throw new HttpFencingConfigurationException("The fencing signing keys are not usable: " + e.getMessage() + ".",
                    "Fix " + KEYS + " or " + ACTIVE_KEY + "; a key id is 1 to 32 of A-Z a-z 0-9 . _ -, a key is "
                            + KEY_FORMAT + ".", e);
        }
        if (signing.getMode() == FenceguardHttpProperties.SignatureMode.COMPACT) {
            log.warn("fenceguard: {}=compact signs the fencing header alone, which is weaker than request signatures: "
                    + "a captured header is usable for any request to the resource while its token is current "
                    + "(the default {}=request binds each signature to one request, admitted once)", MODE, MODE);
        }
        return signing.isRequired() ? keys : keys.acceptingUnsigned();
    }

    /**
     * Whether a server verifies request signatures: with keys and mode=request (without keys there is
     * nothing to verify them with).
     */
    public static boolean verifiesRequests(SigningKeys keys, FenceguardHttpProperties.Signing signing) {
        return !keys.isEmpty() && signing.getMode() == FenceguardHttpProperties.SignatureMode.REQUEST;
    }

    /**
     * Whether such a server refuses every request that is not request-signed: unless compact headers are
     * accepted for a move ({@value #ACCEPT_COMPACT}) or unsigned ones on a trusted network (required=false).
     */
    public static boolean requestSignaturesRequired(FenceguardHttpProperties.Signing signing) {
        return signing.isRequired() && !signing.isAcceptCompact();
    }

    /** A server with fenced endpoints needs keys unless unsigned headers were allowed explicitly. */
    public static void requireForServer(SigningKeys keys, FenceguardHttpProperties.Signing signing) {
        if (keys.isEmpty() && signing.isRequired()) {
            throw new HttpFencingConfigurationException("This application has fenced HTTP endpoints and "
                    + REQUIRED + " is true, but " + KEYS + " is empty: the fencing filter could not verify any token.",
                    "Configure the key the callers sign with: " + KEYS + ".k1=<" + KEY_FORMAT + ">. On a trusted "
                            + "network only, set "
                            + REQUIRED + "=false to admit unsigned tokens.");
        }
    }

    /** A client that sends tokens and has several keys must be told which one signs. */
    public static void requireSignerForClient(SigningKeys keys, FenceguardHttpProperties.Signing signing) {
        if (!keys.isEmpty() && keys.activeKeyId().isEmpty()) {
            throw new HttpFencingConfigurationException(KEYS + " has " + signing.getKeys().size() + " keys "
                    + signing.getKeys().keySet() + " and no " + ACTIVE_KEY + ": outgoing fencing headers would be "
                    + "unsigned.", "Set " + ACTIVE_KEY + " to the id of the key that signs outgoing headers.");
        }
    }

    private static byte[] decode(String id, String text) {
        String trimmed = text == null ? "" : text.trim();
        try {
            return trimmed.contains("-") || trimmed.contains("_")
                    ? Base64.getUrlDecoder().decode(trimmed) : Base64.getDecoder().decode(trimmed);
        } catch (IllegalArgumentException e) {
            throw new HttpFencingConfigurationException(KEYS + "." + id + " is not base64: " + e.getMessage() + ".",
                    "Give the key in base64 or base64url: " + KEY_FORMAT + ".", e);
        }
    }
}
