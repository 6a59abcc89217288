package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.admission.Problem;
import io.fenceguard.core.RefusalListener;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.filter.support.AdmissionLog;
import io.fenceguard.http.filter.support.Http;
import io.fenceguard.http.filter.support.Instances;
import io.fenceguard.http.filter.support.TestApp;
import io.fenceguard.jdbc.admission.support.Stores;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Two resource-server instances sharing one JDBC high-water store on PostgreSQL. */
class JdbcStoreServersTest {

    static final SigningKeys CLIENT_K1 = SigningKeys.of(Map.of("k1", Base64.getDecoder().decode(Instances.KEY_A)), "k1");
    static final SigningKeys CLIENT_K2 = SigningKeys.of(Map.of("k2", Base64.getDecoder().decode(Instances.KEY_B)), "k2");

    static Instances instances = new Instances();
    static final List<String> refusalsOnA = new java.util.concurrent.CopyOnWriteArrayList<>();
    static HikariDataSource check;
    static int a;
    static int b;

    @BeforeAll
    static void start() {
        String schema = Stores.migratedPostgresSchema();
        check = Stores.postgres(schema, 2);
        Map<String, Object> properties = new LinkedHashMap<>(Instances.defaults());
        properties.put("test.store", "jdbc");
        a = Instances.port(instances.start("a", properties, ctx -> {
            ctx.registerBean(DataSource.class, () -> Stores.postgres(schema, 8));
            ctx.registerBean(RefusalListener.class, () -> refusal -> refusalsOnA.add(
                    refusal.where().orElse("-") + " " + refusal.original(Problem.class).map(Problem::status).orElse(0)
                            + " " + refusal.resource().map(Object::toString).orElse("-")
                            + " " + refusal.token().map(Object::toString).orElse("-")
                            + " " + refusal.highWater().map(Object::toString).orElse("-")));
        }));
        b = Instances.port(instances.start("b", properties,
                ctx -> ctx.registerBean(DataSource.class, () -> Stores.postgres(schema, 8))));
    }

    @AfterAll
    static void stop() {
        instances.close();
        check.close();
    }

    static String header(String resource, long token) {
        return CLIENT_K1.header(new Fence(ResourceName.of(resource), FencingToken.of(token))).value();
    }

    static Long storedMark(String resource) throws Exception {
        try (Connection c = check.getConnection(); Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT token FROM fenceguard_http_high_water WHERE resource = '" + resource + "'")) {
            return rows.next() ? rows.getLong(1) : null;
        }
    }

    @Test
    void olderTokenAfterNewerIsRefusedOnEitherInstanceAndEqualTokenContinues() throws Exception {
        assertThat(Http.put(a, "/accounts/1", header("account:1", 100)).status()).isEqualTo(200);
        Http.Response newer = Http.put(b, "/accounts/1", header("account:1", 200));
        assertThat(newer.status()).isEqualTo(200);
        assertThat(newer.body()).startsWith("account:1@200 account:1@200");

        for (int port : List.of(a, b)) {
            Http.Response stale = Http.put(port, "/accounts/1", header("account:1", 100));
            assertThat(stale.status()).isEqualTo(409);
            assertThat(stale.contentType()).startsWith("application/problem+json");
            assertThat(stale.body()).contains("\"status\":409", "\"resource\":\"account:1\"", "\"token\":\"100\"",
                    "\"highWater\":\"200\"", "\"instance\":\"/accounts/1\"",
                    "\"type\":\"urn:fenceguard:stale-token\"");
            assertThat(stale.body()).doesNotContain("Exception", "\tat ");
        }
        assertThat(refusalsOnA).contains("PUT /accounts/1 409 account:1 100 200");
        assertThat(Http.put(a, "/accounts/1", header("account:1", 200)).status()).isEqualTo(200);
        assertThat(Http.put(b, "/accounts/1", header("account:1", 200)).status()).isEqualTo(200);
        assertThat(storedMark("account:1")).isEqualTo(200L);
        long reachedWithOld = TestApp.REACHED.stream().filter(r -> r.inbound().equals("account:1@100")).count();
        assertThat(reachedWithOld).as("only the first call with 100 reached a handler").isEqualTo(1);
    }

    @Test
    void missingHeaderIs428AndNothingIsStored() throws Exception {
        Http.Response response = Http.put(a, "/accounts/2");
        assertThat(response.status()).isEqualTo(428);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.body()).contains("\"resource\":\"account:2\"", "Fencing-Token");
        assertThat(storedMark("account:2")).isNull();
    }

    @Test
    void configuredRouteAndHeaderResourceRoute() throws Exception {
        assertThat(Http.put(a, "/config/7", header("config:7", 5)).status()).isEqualTo(200);
        assertThat(Http.put(b, "/config/7", header("config:7", 4)).status()).isEqualTo(409);
        Http.Response otherResource = Http.put(a, "/config/7", header("account:7", 99));
        assertThat(otherResource.status()).as("a token for another resource").isEqualTo(403);
        assertThat(storedMark("account:7")).isNull();

        Http.Response job = Http.put(b, "/jobs", header("job:nightly", 12));
        assertThat(job.status()).isEqualTo(200);
        assertThat(job.body()).startsWith("job:nightly@12 ");
        assertThat(Http.put(a, "/jobs", header("job:nightly", 11)).status()).isEqualTo(409);

        Http.Response open = Http.send(a, "GET", "/open/3", List.of());
        assertThat(open.status()).isEqualTo(200);
        assertThat(open.body()).startsWith("- ");
    }

    @Test
    void rotatedKeyIsAcceptedUnsignedAndForgedAre403() throws Exception {
        String k2 = CLIENT_K2.header(new Fence(ResourceName.of("account:3"), FencingToken.of(10))).value();
        assertThat(Http.put(a, "/accounts/3", k2).status()).isEqualTo(200);

        Http.Response unsigned = Http.put(a, "/accounts/3", "v1;r=account:3;t=" + Long.MAX_VALUE);
        assertThat(unsigned.status()).isEqualTo(403);
        assertThat(unsigned.body()).contains("must be signed");

        String genuine = header("account:3", 11);
        String forged = genuine.replace(";t=11;", ";t=" + Long.MAX_VALUE + ";");
        Http.Response refused = Http.put(b, "/accounts/3", forged);
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.body()).contains("signature does not match");
        assertThat(storedMark("account:3")).isEqualTo(10L);
    }

    @Test
    void concurrentTokensAreAdmittedMonotonicallyAcrossInstances() throws Exception {
        ResourceName resource = ResourceName.of("account:race");
        long before = TestApp.REACHED.stream().filter(r -> r.path().equals("/accounts/race")).count();
        AdmissionLog log = AdmissionLog.run(List.of(a, b), "/accounts/race", resource, CLIENT_K1, 1_000, 8, 40);

        long pairs = log.assertMonotonic();
        assertThat(pairs).as("ordered pairs compared").isGreaterThan(1_000);
        assertThat(log.entries()).anyMatch(e -> e.status() == 409);
        assertThat(storedMark("account:race")).isEqualTo(log.maxToken());
        long reached = TestApp.REACHED.stream().filter(r -> r.path().equals("/accounts/race")).count() - before;
        assertThat(reached).as("exactly the admitted requests reached a handler").isEqualTo(log.admittedCount());
    }
}
