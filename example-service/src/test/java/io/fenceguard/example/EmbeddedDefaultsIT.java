package io.fenceguard.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The jar on its embedded defaults (embedded Redis and PostgreSQL from Maven, nothing configured but
 * the data directory, its own under target/): the ledger contract, then a restart that finds the
 * accounts where they were (and fences on with a Redis that forgot everything), then a start with
 * {@code example.embedded.discard=true} that finds none.
 */
class EmbeddedDefaultsIT extends LedgerContract {

    private static final Path DATA_DIR = Path.of("target", "it-embedded-postgres").toAbsolutePath();

    @Test
    void ledgerContractHoldsOnEmbeddedDefaultsAndItsDataOutlivesARestart() throws Exception {
        String account;
        String accountBefore;
        String auditBefore;
        // discard: a data directory left by an earlier build starts empty
        try (RunningJar app = RunningJar.start("embedded", args(true))) {
            assertStartupLine(app, true);
            account = runContract(app);
            accountBefore = app.send("GET", "/accounts/" + account, null).body();
            auditBefore = app.send("GET", "/audit/" + account, null).body();
        }

        try (RunningJar app = RunningJar.start("embedded-restart", args(false))) {
            assertStartupLine(app, false);
            assertThat(app.send("GET", "/accounts/" + account, null).body()).isEqualTo(accountBefore);
            assertThat(app.send("GET", "/audit/" + account, null).body()).isEqualTo(auditBefore);
            // Redis started empty; the next token is still above those the rows and the audit filter have seen.
            long lastToken = ((Number) JsonPath.read(accountBefore, "$.currentToken")).longValue();
            HttpResponse<String> deposit = app.send("POST", "/accounts/" + account + "/deposits", "{\"amount\":3}");
            assertThat(deposit.statusCode()).as(deposit.body()).isEqualTo(200);
            assertThat(((Number) JsonPath.read(deposit.body(), "$.token")).longValue()).isGreaterThan(lastToken);
            long balanceBefore = ((Number) JsonPath.read(accountBefore, "$.balance")).longValue();
            assertThat(((Number) JsonPath.read(deposit.body(), "$.balance")).longValue()).isEqualTo(balanceBefore + 3);
        }

        try (RunningJar app = RunningJar.start("embedded-discard", args(true))) {
            assertStartupLine(app, true);
            assertThat(app.send("GET", "/accounts/" + account, null).statusCode()).isEqualTo(404);
        }
    }

    private static List<String> args(boolean discard) {
        List<String> args = new ArrayList<>(COMMON);
        args.add("--example.embedded.data-dir=" + DATA_DIR);
        args.add("--example.embedded.discard=" + discard);
        return args;
    }

    /** One line tells where the data lives, on which ports, and that Redis keeps nothing. */
    private static void assertStartupLine(RunningJar app, boolean discarded) throws Exception {
        Pattern line = Pattern.compile(".*embedded PostgreSQL in " + Pattern.quote(DATA_DIR.toString())
                + " on port \\d+ \\(data " + (discarded ? "discarded at start" : "kept across restarts")
                + "\\), embedded Redis on port \\d+ \\(in memory, nothing kept\\)$");
        List<String> lines = app.logLines();
        assertThat(lines.stream().filter(l -> l.contains("embedded PostgreSQL in "))).as("startup log")
                .singleElement().matches(l -> line.matcher(l).matches(), line.pattern());
    }
}
