package example.metrics;

import static example.metrics.SelfCheck.require;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * Scrapes this application's own {@code /actuator/prometheus} and requires every metric name that the dashboard's
 * and the alert rules' expressions use. Meters of events appear when the event is first reported (on the lease
 * manager's event thread), so the scrape is repeated for up to 10 s before the missing names are reported.
 */
@Component
class MetricsCheck {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final RestClient actuator;
    private final String dashboardPath;
    private final String alertsPath;

    MetricsCheck(@Value("${server.port}") int port, @Value("${ops.dashboard:}") String dashboardPath,
                 @Value("${ops.alerts:}") String alertsPath) {
        this.actuator = RestClient.create("http://127.0.0.1:" + port + "/actuator");
        this.dashboardPath = dashboardPath;
        this.alertsPath = alertsPath;
    }

    void run() throws IOException {
        String dashboard = OperationsFiles.read(dashboardPath, "ops/grafana/fenceguard-dashboard.json");
        String alerts = OperationsFiles.read(alertsPath, "ops/prometheus/fenceguard-alerts.yml");
        String runbook = OperationsFiles.read(null, "ops/operations.md");
        Map<String, String> used = new LinkedHashMap<>(
                OperationsFiles.metricNames(OperationsFiles.dashboardExpressions(dashboard)));
        OperationsFiles.metricNames(OperationsFiles.alertExpressions(alerts, runbook)).forEach(used::putIfAbsent);

        Set<String> exposed = exposedUntil(used.keySet());
        Map<String, String> missing = missing(used, exposed);
        require(missing.isEmpty(), "metric names the operations files use that /actuator/prometheus does not expose: "
                + missing + " (exposed fenceguard and resilience4j names: " + ours(exposed) + ")");

        // The check itself must fail on a renamed metric: one name of the dashboard changed, in memory.
        String renamed = used.keySet().iterator().next();
        Map<String, String> afterRename = OperationsFiles.metricNames(OperationsFiles.dashboardExpressions(
                dashboard.replace(renamed, renamed + "_renamed")));
        require(missing(afterRename, exposed).containsKey(renamed + "_renamed"),
                "a dashboard with " + renamed + " renamed passed the check");
        System.out.println("metrics: all " + used.size() + " metric names of the dashboard and the alert rules are"
                + " exposed: " + new TreeSet<>(used.keySet()));
    }

    private Set<String> exposedUntil(Set<String> wanted) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        Set<String> exposed = scrape();
        while (!exposed.containsAll(wanted) && System.nanoTime() < deadline) {
            AccountChecks.sleep(200);
            exposed = scrape();
        }
        return exposed;
    }

    /** The sample names of the Prometheus text format: each line's first word, comments left out. */
    private Set<String> scrape() {
        String text = actuator.get().uri("/prometheus").retrieve().body(String.class);
        require(text != null, "/actuator/prometheus answered nothing");
        Set<String> names = new TreeSet<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    private static Map<String, String> missing(Map<String, String> used, Set<String> exposed) {
        Map<String, String> missing = new LinkedHashMap<>(used);
        missing.keySet().removeAll(exposed);
        return missing;
    }

    private static List<String> ours(Set<String> exposed) {
        return exposed.stream().filter(n -> n.startsWith("fenceguard") || n.startsWith("resilience4j")).toList();
    }
}
