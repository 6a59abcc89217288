package io.fenceguard.autoconfigure.http;

import io.fenceguard.http.SigningKeys;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/** The signing keys shared by the filter and the clients. */
@AutoConfiguration
@EnableConfigurationProperties(GuardHttpProperties.class)
public class GuardHttpSigningAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    SigningKeys fencingSigningKeys(GuardHttpProperties properties) {
        GuardHttpProperties.Signing signing = properties.getSigning();
        if (signing.getKeys().isEmpty()) {
            if (signing.isRequired()) {
                throw new IllegalStateException("guard.http.signing.keys is empty while guard.http.signing.required "
                        + "is true: configure a key (32 random bytes, base64) or set guard.http.signing.required=false");
            }
            return SigningKeys.none();
        }
        if (!signing.isRequired()) {
            throw new IllegalStateException("guard.http.signing.required=false with keys configured would admit "
                    + "unsigned headers next to signed ones: remove the keys or require signatures");
        }
        Map<String, byte[]> secrets = new LinkedHashMap<>();
        signing.getKeys().forEach((id, text) -> secrets.put(id, decode(id, text)));
        return SigningKeys.of(secrets, signing.getActiveKey());
    }

    private static byte[] decode(String id, String text) {
        String trimmed = text == null ? "" : text.trim();
        try {
            return trimmed.contains("-") || trimmed.contains("_")
                    ? Base64.getUrlDecoder().decode(trimmed) : Base64.getDecoder().decode(trimmed);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("guard.http.signing.keys." + id + " is not base64", e);
        }
    }
}
