package io.fenceguard.http.filter.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/** Instances of {@link TestApp} on random ports in this JVM, each a separate application context. */
public final class Instances implements AutoCloseable {

    public static final String KEY_A = TestWiring.KEY_A;
    public static final String KEY_B = TestWiring.KEY_B;

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    /** Properties every instance gets: a random port; the fencing itself is {@link TestWiring}'s. */
    public static Map<String, Object> defaults() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("spring.main.banner-mode", "off");
        return properties;
    }

    /** Starts an instance named {@code name} with {@code properties}; {@code beans} registers extra beans. */
    public ConfigurableApplicationContext start(String name, Map<String, Object> properties,
            Consumer<GenericApplicationContext> beans) {
        Map<String, Object> all = new LinkedHashMap<>(properties);
        all.put("test.instance", name);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApp.class)
                .properties(all)
                .initializers(ctx -> beans.accept((GenericApplicationContext) ctx))
                .run();
        contexts.add(context);
        return context;
    }

    public static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    public static String url(ConfigurableApplicationContext context) {
        return "http://127.0.0.1:" + port(context);
    }

    @Override
    public void close() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }
}
