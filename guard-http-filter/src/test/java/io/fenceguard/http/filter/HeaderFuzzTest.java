package io.fenceguard.http.filter;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.http.filter.support.Http;
import io.fenceguard.http.filter.support.Instances;
import io.fenceguard.http.filter.support.TestApp;
import io.fenceguard.jdbc.admission.support.Stores;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Thousands of bad fencing headers: malformed, oversized, negative, overflowing, duplicated and
 * forged. Each is answered 400 or 403, none reaches a handler, and the store is unchanged.
 */
class HeaderFuzzTest {

    static final String PATH = "/accounts/fuzz";
    static final ResourceName RESOURCE = ResourceName.of("account:fuzz");
    static final SigningKeys WRONG_KEY = SigningKeys.of(Map.of("k1", "another-key-0123456789abcdef0123456".getBytes(
            StandardCharsets.US_ASCII)), "k1");
    static final SigningKeys UNKNOWN_ID = SigningKeys.of(Map.of("k9", "another-key-0123456789abcdef0123456".getBytes(
            StandardCharsets.US_ASCII)), "k9");
    static final String SYMBOLS = "v1;r=t:k=s0123456789-_.:/@#{} ,+*%\"'\\\t\u0001\u007f\u00e9abcXYZ";

    static Instances instances = new Instances();
    static HikariDataSource check;
    static int port;

    @BeforeAll
    static void start() {
        String schema = Stores.migratedPostgresSchema();
        check = Stores.postgres(schema, 2);
        Map<String, Object> properties = new java.util.LinkedHashMap<>(Instances.defaults());
        properties.put("test.store", "jdbc");
        port = Instances.port(instances.start("fuzz", properties,
                ctx -> ctx.registerBean(DataSource.class, () -> Stores.postgres(schema, 4))));
    }

    @AfterAll
    static void stop() {
        instances.close();
        check.close();
    }

    static String valid(long token) {
        return JdbcStoreServersTest.CLIENT_K1.header(new Fence(RESOURCE, FencingToken.of(token))).value();
    }

    @Test
    void badHeadersAreRefusedBeforeTheHandlerAndChangeNothing() throws Exception {
        assertThat(Http.put(port, PATH, valid(500)).status()).isEqualTo(200);
        Map<String, Long> storeBefore = store();
        long reachedBefore = reached();

        List<List<String>> cases = cases(new Random(20250601));
        assertThat(cases).hasSizeGreaterThanOrEqualTo(1_000);
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (List<String> headers : cases) {
            Http.Response response = Http.send(port, "PUT", PATH, headers);
            assertThat(response.status()).as("status for %s", headers).isIn(400, 403);
            statuses.merge(response.status(), 1, Integer::sum);
        }

        assertThat(statuses).containsKeys(400, 403);
        assertThat(reached()).as("no bad header reached a handler").isEqualTo(reachedBefore);
        assertThat(store()).as("the store is unchanged").isEqualTo(storeBefore);
        assertThat(Http.put(port, PATH, valid(500)).status()).as("the holder continues").isEqualTo(200);
    }

    static List<List<String>> cases(Random random) {
        List<List<String>> cases = new ArrayList<>();
        String genuine = valid(501);
        for (String token : List.of("-1", "-501", "0", "+501", "0501", "00", "9223372036854775808",
                "18446744073709551615", "18446744073709551616", "99999999999999999999999", "1e3", "0x1F5",
                "501 ", " 501", "5 01", "501.0", "")) {
            cases.add(List.of("v1;r=account:fuzz;t=" + token));
            cases.add(List.of(genuine.replace(";t=501;", ";t=" + token + ";")));
        }
        for (String shape : List.of("v1", "v1;", "v1;r=account:fuzz", "v1;t=501;r=account:fuzz", "v2;r=account:fuzz;t=501",
                "V1;r=account:fuzz;t=501", "v1;R=account:fuzz;t=501", "v1;r=account:fuzz;t=501;", "v1;r=;t=501",
                "v1;r=account:fuzz;t=501;k=k1", "v1;r=account:fuzz;t=501;k=k1;s=", "v1;r=account fuzz;t=501",
                "v1;r={account:fuzz};t=501", "v1;r=account:fuzz;t=501;k=;s=" + "A".repeat(43),
                "v1;r=account:fuzz;t=501;k=k1;s=" + "A".repeat(44), "v1;r=account:fuzz;t=501;k=k1;s=" + "A".repeat(42),
                "v1;r=account:fuzz;t=501;k=k1;s=" + "+".repeat(43), "v1;r=account:fuzz;t=501;k=k1;s=" + "A".repeat(43) + ";x=1",
                "v1;r=account:fuzz;t=501;k=" + "k".repeat(33) + ";s=" + "A".repeat(43), "v1;;r=account:fuzz;t=501",
                genuine + "," + genuine, genuine + ";" + genuine, "v1;r=" + "a".repeat(201) + ";t=501")) {
            cases.add(List.of(shape));
        }
        for (int length : new int[] {321, 400, 1_000, 4_000, 7_000, 20_000}) {
            cases.add(List.of("v1;r=account:fuzz;t=" + "9".repeat(length)));
            cases.add(List.of(genuine + "x".repeat(length)));
        }
        cases.add(List.of(genuine, genuine));
        cases.add(List.of(valid(502), valid(503)));
        cases.add(List.of(genuine, "v1;r=account:fuzz;t=501"));
        cases.add(List.of("x", genuine));
        // Forged: unsigned, wrong key, unknown key id, token or resource changed after signing.
        for (long token : new long[] {501, 1_000_000, Long.MAX_VALUE}) {
            cases.add(List.of("v1;r=account:fuzz;t=" + token));
            cases.add(List.of(WRONG_KEY.header(new Fence(RESOURCE, FencingToken.of(token))).value()));
            cases.add(List.of(UNKNOWN_ID.header(new Fence(RESOURCE, FencingToken.of(token))).value()));
            cases.add(List.of(genuine.replace(";t=501;", ";t=" + (token == 501 ? 502 : token) + ";")));
            cases.add(List.of(JdbcStoreServersTest.CLIENT_K1.header(new Fence(ResourceName.of("account:other"),
                    FencingToken.of(token))).value()));
        }
        while (cases.size() < 1_200) {
            String bad = random.nextInt(4) == 0 ? noise(random) : mutate(genuine, random);
            if (!bad.equals(genuine)) {
                cases.add(List.of(bad));
            }
        }
        return cases;
    }

    private static String mutate(String genuine, Random random) {
        StringBuilder text = new StringBuilder(genuine);
        int edits = 1 + random.nextInt(3);
        for (int i = 0; i < edits; i++) {
            int at = random.nextInt(text.length());
            char replacement = SYMBOLS.charAt(random.nextInt(SYMBOLS.length()));
            switch (random.nextInt(3)) {
                case 0 -> {
                    if (text.charAt(at) == replacement) {
                        replacement = replacement == 'a' ? 'b' : 'a';
                    }
                    text.setCharAt(at, replacement);
                }
                case 1 -> text.insert(at, replacement);
                default -> text.deleteCharAt(at);
            }
        }
        return text.toString();
    }

    private static String noise(Random random) {
        StringBuilder text = new StringBuilder();
        int length = 1 + random.nextInt(120);
        for (int i = 0; i < length; i++) {
            text.append(SYMBOLS.charAt(random.nextInt(SYMBOLS.length())));
        }
        return text.toString();
    }

    private static long reached() {
        return TestApp.REACHED.stream().filter(r -> r.path().equals(PATH)).count();
    }

    private static Map<String, Long> store() throws Exception {
        Map<String, Long> rows = new TreeMap<>();
        try (Connection c = check.getConnection(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT resource, token FROM fenceguard_http_high_water")) {
            while (r.next()) {
                rows.put(r.getString(1), r.getLong(2));
            }
        }
        return rows;
    }
}
