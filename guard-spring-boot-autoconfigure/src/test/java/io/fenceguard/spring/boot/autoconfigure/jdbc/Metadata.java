package io.fenceguard.spring.boot.autoconfigure.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.json.JsonParserFactory;

/** The configuration metadata the configuration processor generated, by property name. */
public final class Metadata {

    private Metadata() {
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Map<String, Object>> properties(String prefix) throws IOException {
        try (InputStream in = Metadata.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            if (in == null) {
                throw new IllegalStateException("no META-INF/spring-configuration-metadata.json on the classpath");
            }
            Map<String, Object> metadata = JsonParserFactory.getJsonParser()
                    .parseMap(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            Map<String, Map<String, Object>> byName = new LinkedHashMap<>();
            for (Map<String, Object> property : (List<Map<String, Object>>) metadata.get("properties")) {
                String name = (String) property.get("name");
                if (name.startsWith(prefix)) {
                    byName.put(name, property);
                }
            }
            return byName;
        }
    }
}
