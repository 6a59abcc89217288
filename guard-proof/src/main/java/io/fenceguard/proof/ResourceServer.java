package io.fenceguard.proof;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.admission.FencedRoute;
import io.fenceguard.admission.InboundContext;
import io.fenceguard.admission.InboundFence;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.http.filter.FencingFilter;
import io.fenceguard.jdbc.admission.JdbcHighWaterStore;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * The HTTP resource: registers read and written over HTTP on an embedded Tomcat on a loopback port.
 * With fencing, fenceguard-http-filter's {@link FencingFilter} admits tokens against a JDBC high-water
 * store (GET and PUT are both guarded, so the read of a read-modify-write is fenced), and the
 * handler writes through the fenced DataSource under the admitted token. Without, there is no
 * filter and the handler writes on the raw pool, recording the token the client sent.
 */
public final class ResourceServer implements AutoCloseable {

    private final Tomcat tomcat;
    private static final java.util.concurrent.atomic.AtomicInteger INSTANCES = new java.util.concurrent.atomic.AtomicInteger();

    private final Connector connector;

    private ResourceServer(Tomcat tomcat, Connector connector) {
        this.tomcat = tomcat;
        this.connector = connector;
    }

    public static ResourceServer start(DataSource rawPool, boolean fencing) throws IOException, LifecycleException {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("proof-tomcat").toString());
        // Its own JMX domain: runs at the same time in one JVM (ProofIT) would otherwise register the same names.
        tomcat.getEngine().setName("proof-resource-server-" + INSTANCES.incrementAndGet());
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("maxThreads", "16");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        DataSource writes = fencing ? ClientKit.fenced(rawPool) : rawPool;
        Tomcat.addServlet(context, "registers", new Registers(writes, fencing));
        context.addServletMappingDecoded("/registers/*", "registers");
        if (fencing) {
            JdbcHighWaterStore store = JdbcHighWaterStore.of(rawPool);
            InboundFence inbound = InboundFence.of(
                    List.of(FencedRoute.of(Set.of("GET", "PUT"), "/registers/{id}", "register:{id}")),
                    store, SigningKeys.none());
            FilterDef def = new FilterDef();
            def.setFilterName("fencing");
            // a retried write (same Idempotency-Key) is answered from its first answer, not applied again
            def.setFilter(FencingFilter.of(inbound).withIdempotency(store));
            context.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName("fencing");
            map.addURLPattern("/*");
            context.addFilterMap(map);
        }
        tomcat.start();
        return new ResourceServer(tomcat, connector);
    }

    public int port() {
        return connector.getLocalPort();
    }

    @Override
    public void close() throws LifecycleException {
        tomcat.stop();
        tomcat.destroy();
    }

    /** GET answers the value; PUT {@code ?value=&read=&op=} writes it absolutely and logs the write. */
    static final class Registers extends HttpServlet {

        private final transient DataSource dataSource;
        private final boolean fencing;

        Registers(DataSource dataSource, boolean fencing) {
            this.dataSource = dataSource;
            this.fencing = fencing;
        }

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String resource = "register:" + request.getPathInfo().substring(1);
            answer(response, () -> {
                try (Connection c = dataSource.getConnection()) {
                    c.setAutoCommit(false);
                    long value = CellWrites.read(c, resource);
                    c.commit();
                    return String.valueOf(value);
                }
            });
        }

        @Override
        protected void doPut(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String resource = "register:" + request.getPathInfo().substring(1);
            long token = (fencing ? InboundContext.current().orElseThrow()
                    : FenceHeader.parse(request.getHeader(FenceHeader.DEFAULT_NAME)).fence()).token().value();
            long value = Long.parseLong(request.getParameter("value"));
            long read = Long.parseLong(request.getParameter("read"));
            String op = request.getParameter("op");
            answer(response, () -> {
                try (Connection c = dataSource.getConnection()) {
                    c.setAutoCommit(false);
                    long seq = CellWrites.write(c, resource, op, token, read, value, null);
                    c.commit();
                    return "seq " + seq;
                }
            });
        }

        private void answer(HttpServletResponse response, SqlWork work) throws IOException {
            Lease admitted = fencing ? InboundContext.current().map(Registers::presented).orElse(null) : null;
            try (AutoCloseable scope = admitted != null ? LeaseContext.bind(admitted) : () -> { }) {
                String body = work.run();
                response.setStatus(200);
                response.getWriter().write(body);
            } catch (SQLException e) {
                boolean stale = Outcomes.isStale(e);
                response.setStatus(stale ? 409 : 503);
                response.getWriter().write(stale ? "stale-db" : "db-error: " + e.getMessage());
            } catch (Exception e) {
                response.setStatus(500);
                response.getWriter().write("error: " + e);
            }
        }

        private static Lease presented(Fence fence) {
            return Lease.presented(fence, "http");
        }
    }

    @FunctionalInterface
    interface SqlWork {
        String run() throws SQLException;
    }
}
