package io.fenceguard.http.filter.support;

import io.fenceguard.admission.FencedEndpoint;
import io.fenceguard.admission.InboundContext;
import io.fenceguard.core.LeaseContext;
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

    /** One call to a store server (a Redis PING, a PostgreSQL query): the benchmark's handler of /round-trip. */
    public interface RoundTrip {
        void run() throws Exception;
    }

    @RestController
    static class Endpoints {

        private final String instance;
        private final org.springframework.beans.factory.ObjectProvider<javax.sql.DataSource> dataSource;
        private final boolean joined;
        private final org.springframework.beans.factory.ObjectProvider<RoundTrip> roundTrip;

        Endpoints(org.springframework.core.env.Environment environment,
                org.springframework.beans.factory.ObjectProvider<javax.sql.DataSource> dataSource,
                org.springframework.beans.factory.ObjectProvider<RoundTrip> roundTrip) {
            this.instance = environment.getProperty("test.instance", "?");
            this.dataSource = dataSource;
            this.roundTrip = roundTrip;
            this.joined = environment.getProperty("test.join-transaction", Boolean.class, false);
        }

        /**
         * A handler that writes one row to the DataSource bean (in the request's transaction with
         * {@code test.join-transaction=true}, on its own otherwise): the benchmark's handler with a write.
         */
        @FencedEndpoint(resource = "account:{id}")
        @PutMapping("/writes/{id}")
        String write(@PathVariable String id) throws java.sql.SQLException {
            insert(id);
            return "written";
        }

        /** Unfenced: the row of {@link #write}, then one call to a store server ({@link RoundTrip}). */
        @PutMapping("/writes-round-trip/{id}")
        String writeAndRoundTrip(@PathVariable String id) throws Exception {
            insert(id);
            roundTrip.getObject().run();
            return "written";
        }

        private void insert(String id) throws java.sql.SQLException {
            javax.sql.DataSource target = dataSource.getObject();
            javax.sql.DataSource source = joined ? TestWiring.Server.transactions(target).dataSource() : target;
            try (java.sql.Connection c = source.getConnection();
                    java.sql.PreparedStatement insert = c.prepareStatement("INSERT INTO bench_writes (id) VALUES (?)")) {
                insert.setString(1, id);
                insert.executeUpdate();
            }
        }

        /**
         * Unfenced: one call to a store server ({@link RoundTrip}) and nothing else, what a filter calling the same
         * server once per request could reach at most.
         */
        @PutMapping("/round-trip/{id}")
        String roundTrip(@PathVariable String id) throws Exception {
            roundTrip.getObject().run();
            return "done";
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
