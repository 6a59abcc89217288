package io.fenceguard.http.support;

import io.fenceguard.core.LeaseContext;
import io.fenceguard.http.FencedEndpoint;
import io.fenceguard.http.InboundContext;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** The resource server under test: fenced endpoints (annotated and configured), an open one, an echo. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({TestApp.Endpoints.class, TestWiring.class})
public class TestApp {

    /** Every call that reached a handler, by instance, in the order the handlers ran. */
    public record Reached(String instance, String path, String inbound) {
    }

    public static final Queue<Reached> REACHED = new ConcurrentLinkedQueue<>();

    @RestController
    static class Endpoints {

        private final String instance;

        Endpoints(org.springframework.core.env.Environment environment) {
            this.instance = environment.getProperty("test.instance", "?");
        }

        @FencedEndpoint(resource = "account:{id}")
        @PutMapping("/accounts/{id}")
        String put(@PathVariable String id, @RequestBody(required = false) String body) {
            return record("/accounts/" + id);
        }

        /** Fenced by a configured route ({@link TestWiring}), not by annotation. */
        @PutMapping("/config/{id}")
        String putConfigured(@PathVariable String id) {
            return record("/config/" + id);
        }

        /** Fenced by annotation with the resource taken from the header. */
        @FencedEndpoint
        @PutMapping("/jobs")
        String job() {
            return record("/jobs");
        }

        @GetMapping("/open/{id}")
        String open(@PathVariable String id) {
            return record("/open/" + id);
        }

        /** Echoes the fencing header it received: the destination side of client tests. */
        @GetMapping("/echo")
        String echo(@RequestHeader(name = "Fencing-Token", required = false) String header) {
            return header == null ? "-" : header;
        }

        private String record(String path) {
            String inbound = InboundContext.current().map(Object::toString).orElse("-");
            String lease = LeaseContext.current().map(l -> l.fence().toString()).orElse("-");
            REACHED.add(new Reached(instance, path, inbound));
            return inbound + " " + lease;
        }
    }
}
