package io.fenceguard.spring.boot.autoconfigure.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** The configuration metadata of fenceguard.http.* and the registration of the failure analyzer. */
class HttpFencingMetadataTest {

    private static final Pattern PROPERTY = Pattern.compile("\\{[^{}]*\"name\"\\s*:\\s*\"(fenceguard\\.http\\.[^\"]+)\"[^{}]*}");

    /** Each fenceguard.http property of this module's metadata, with its JSON object. */
    static Map<String, String> properties() throws IOException {
        Map<String, String> properties = new LinkedHashMap<>();
        for (URL url : Collections.list(HttpFencingMetadataTest.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            String json;
            try (InputStream in = url.openStream()) {
                json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!json.contains("\"sourceType\": \"" + FenceguardHttpProperties.class.getName())) {
                continue;
            }
            int propertiesStart = json.indexOf("\"properties\"");
            Matcher matcher = PROPERTY.matcher(json.substring(propertiesStart));
            while (matcher.find()) {
                properties.put(matcher.group(1), matcher.group());
            }
        }
        return properties;
    }

    @Test
    void everyPropertyHasADescriptionAndScalarsHaveDefaults() throws IOException {
        Map<String, String> properties = properties();
        assertThat(properties).containsKeys("fenceguard.http.header-name", "fenceguard.http.signing.required",
                "fenceguard.http.signing.keys", "fenceguard.http.signing.active-key", "fenceguard.http.store.type",
                "fenceguard.http.store.table", "fenceguard.http.store.key-prefix", "fenceguard.http.server.enabled",
                "fenceguard.http.server.filter-order", "fenceguard.http.server.routes",
                "fenceguard.http.client.enabled", "fenceguard.http.client.destinations");
        List<String> withoutDescription = new ArrayList<>();
        properties.forEach((name, json) -> {
            if (!json.contains("\"description\"")) {
                withoutDescription.add(name);
            }
        });
        assertThat(withoutDescription).isEmpty();
        assertThat(properties.get("fenceguard.http.signing.required")).contains("\"defaultValue\": true");
        assertThat(properties.get("fenceguard.http.signing.mode")).contains("\"defaultValue\": \"request\"");
        assertThat(properties.get("fenceguard.http.signing.accept-compact")).contains("\"defaultValue\": false");
        assertThat(properties.get("fenceguard.http.server.max-token-skew")).contains("\"defaultValue\": \"5s\"");
        assertThat(properties).containsKeys("fenceguard.http.signing.demo-keys", "fenceguard.http.signing.max-signed-body");
        assertThat(properties.get("fenceguard.http.header-name")).contains("\"defaultValue\": \"Fencing-Token\"");
        assertThat(properties.get("fenceguard.http.store.type")).contains("\"defaultValue\": \"memory\"");
        assertThat(properties.get("fenceguard.http.store.key-prefix")).contains("\"defaultValue\": \"fg:http:\"");
        assertThat(properties.get("fenceguard.http.server.enabled")).contains("\"defaultValue\": true");
        assertThat(properties.get("fenceguard.http.client.enabled")).contains("\"defaultValue\": true");
        assertThat(properties.get("fenceguard.http.server.filter-order")).contains("\"defaultValue\": 0");
        assertThat(properties.get("fenceguard.http.store.table")).contains("\"defaultValue\": \"fenceguard_http_high_water\"");
    }

    @Test
    void literalDefaultsAreTheLibrarysOwn() {
        FenceguardHttpProperties properties = new FenceguardHttpProperties();
        assertThat(properties.getHeaderName()).isEqualTo(FenceHeader.DEFAULT_NAME);
        assertThat(properties.getStore().getTable()).isEqualTo(JdbcHighWaterStore.DEFAULT_TABLE);
    }

    @Test
    void failureAnalyzerIsRegistered() {
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class,
                SpringFactoriesLoader.ArgumentResolver.none(), SpringFactoriesLoader.FailureHandler.handleMessage((m, e) -> { }));
        assertThat(analyzers).hasAtLeastOneElementOfType(HttpFencingFailureAnalyzer.class);
    }
}
