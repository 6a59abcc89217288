package example.metrics;

import static example.metrics.SelfCheck.require;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/**
 * The PromQL expressions of the Grafana dashboard (panel targets and variable queries) and of the Prometheus alert
 * rules, read from the copies of ops/ in this application (or from files named on the command line), and the metric
 * names each uses. The alert file's structure is checked as Prometheus reads it: groups of named rules, each with an
 * expression, a severity and a runbook section that exists in operations.md.
 */
final class OperationsFiles {

    /** An expression and where it was found. */
    record Expression(String where, String promql) {
    }

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^{}]*}");
    private static final Pattern RANGE = Pattern.compile("\\[[^\\[\\]]*]");
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^()]*\\)");
    private static final Pattern GRAFANA_VARIABLE = Pattern.compile("\\$\\{[^}]*}|\\$\\w+");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.])[A-Za-z_:][\\w:]*");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without",
            "on", "ignoring", "group_left", "group_right", "inf", "nan", "Inf", "NaN");
    private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\((.*),\\s*\\w+\\s*\\)\\s*$");

    private OperationsFiles() {
    }

    static List<Expression> dashboardExpressions(String json) {
        JsonNode dashboard = JsonMapper.builder().build().readTree(json);
        List<Expression> found = new ArrayList<>();
        collectTargets(dashboard.path("panels"), found);
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            JsonNode query = variable.path("query");
            String text = query.isObject() ? query.path("query").asString("") : query.asString("");
            Matcher labelValues = LABEL_VALUES.matcher(text);
            if ("query".equals(variable.path("type").asString()) && labelValues.matches()) {
                found.add(new Expression("dashboard variable " + variable.path("name").asString(), labelValues.group(1)));
            }
        }
        require(!found.isEmpty(), "the dashboard has no expressions");
        return found;
    }

    private static void collectTargets(JsonNode panels, List<Expression> found) {
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                require(target.hasNonNull("expr"), "a target of panel '" + panel.path("title").asString() + "' has no expr");
                found.add(new Expression("dashboard panel '" + panel.path("title").asString() + "'",
                        target.path("expr").asString()));
            }
            collectTargets(panel.path("panels"), found);
        }
    }

    /** The rules' expressions, once the file has the structure Prometheus and the runbook need. */
    @SuppressWarnings("unchecked")
    static List<Expression> alertExpressions(String yaml, String runbook) {
        Object root = new Yaml().load(yaml);
        require(root instanceof Map<?, ?> map && map.get("groups") instanceof List<?>,
                "the alert file has no list 'groups'");
        Set<String> anchors = anchors(runbook);
        List<Expression> found = new ArrayList<>();
        for (Object g : (List<Object>) ((Map<String, Object>) root).get("groups")) {
            require(g instanceof Map<?, ?> group && group.get("name") instanceof String
                    && group.get("rules") instanceof List<?>, "an alert group without a name or rules: " + g);
            for (Object r : (List<Object>) ((Map<String, Object>) g).get("rules")) {
                Map<String, Object> rule = r instanceof Map<?, ?> ? (Map<String, Object>) r : Map.of();
                String alert = String.valueOf(rule.get("alert"));
                require(rule.get("alert") instanceof String && rule.get("expr") instanceof String,
                        "an alert rule without alert or expr: " + r);
                require(rule.get("labels") instanceof Map<?, ?> labels && labels.get("severity") instanceof String,
                        "alert " + alert + " has no severity label");
                require(rule.get("annotations") instanceof Map<?, ?> notes
                                && notes.get("summary") instanceof String && notes.get("runbook_url") instanceof String,
                        "alert " + alert + " has no summary or runbook_url");
                String url = (String) ((Map<String, Object>) rule.get("annotations")).get("runbook_url");
                require(anchors.contains(url.substring(url.indexOf('#') + 1)),
                        "alert " + alert + " links to " + url + ", a section operations.md does not have");
                found.add(new Expression("alert " + alert, (String) rule.get("expr")));
            }
        }
        require(!found.isEmpty(), "the alert file has no rules");
        return found;
    }

    /** GitHub's heading anchors: lower case, spaces to dashes, other punctuation dropped. */
    private static Set<String> anchors(String markdown) {
        Set<String> anchors = new TreeSet<>();
        for (String line : markdown.split("\n")) {
            if (line.startsWith("#")) {
                anchors.add(line.replaceFirst("^#+\\s*", "").trim().toLowerCase()
                        .replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }

    /**
     * The metric names of a PromQL expression: what is left once strings, label matchers, ranges, grouping label
     * lists and Grafana variables are taken out, less functions (a name before '(') and keywords.
     */
    static Set<String> metricNames(String promql) {
        String rest = STRING.matcher(promql).replaceAll("\"\"");
        rest = GRAFANA_VARIABLE.matcher(rest).replaceAll("");
        rest = MATCHERS.matcher(rest).replaceAll(" ");
        rest = RANGE.matcher(rest).replaceAll(" ");
        rest = GROUPING.matcher(rest).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher identifier = IDENTIFIER.matcher(rest);
        while (identifier.find()) {
            String name = identifier.group();
            String after = rest.substring(identifier.end()).stripLeading();
            if (!KEYWORDS.contains(name) && !after.startsWith("(")) {
                names.add(name);
            }
        }
        return names;
    }

    /** Each metric name and the first place that uses it. */
    static Map<String, String> metricNames(List<Expression> expressions) {
        Map<String, String> names = new LinkedHashMap<>();
        for (Expression expression : expressions) {
            for (String name : metricNames(expression.promql())) {
                names.putIfAbsent(name, expression.where());
            }
        }
        return names;
    }

    /** A file named by {@code path}, else the copy of ops/ in this application at {@code resource}. */
    static String read(String path, String resource) throws IOException {
        if (path != null && !path.isBlank()) {
            return Files.readString(Path.of(path));
        }
        try (InputStream in = OperationsFiles.class.getClassLoader().getResourceAsStream(resource)) {
            require(in != null, "no " + resource + " in the application: ops/ was not copied in");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
