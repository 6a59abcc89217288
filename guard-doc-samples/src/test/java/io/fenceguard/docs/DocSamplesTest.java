package io.fenceguard.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java code block of README.md and docs/ is a tagged region of these test sources: a block is preceded by
 * {@code <!-- sample: name -->} and must equal the region between {@code // tag::name[]} and
 * {@code // end::name[]} (each line trimmed, runs of spaces as one, blank lines dropped). So a renamed method
 * breaks the build here instead of leaving the documents wrong.
 */
class DocSamplesTest {

    private static final Pattern MARKER = Pattern.compile("^<!-- sample: ([a-z0-9-]+) -->$");
    private static final Pattern TAG = Pattern.compile("^\\s*// tag::([a-z0-9-]+)\\[]\\s*$");
    private static final Pattern END = Pattern.compile("^\\s*// end::([a-z0-9-]+)\\[]\\s*$");

    @Test
    void everyJavaSampleOfTheDocumentsIsCompiledSource() {
        Path root = projectRoot();
        List<String> problems = check(documents(root), regions(Path.of("src/test/java")));
        assertThat(problems).as("samples of the documents that differ from their sources").isEmpty();
    }

    @Test
    void aSampleThatNoLongerMatchesItsSourceIsReported(@TempDir Path dir) throws IOException {
        Path sources = Files.createDirectories(dir.resolve("src"));
        Files.writeString(sources.resolve("Sample.java"), """
                class Sample {
                    void run(LeaseManager guard) {
                        // tag::%1$s[]
                        guard.acquire("account:42", Duration.ofSeconds(5));
                        // end::%1$s[]
                    }
                }
                """.formatted("acquire"));
        Path doc = dir.resolve("guide.md");
        Files.writeString(doc, """
                # Guide

                <!-- sample: acquire -->
                ```java
                guard.obtain("account:42",   Duration.ofSeconds(5));
                ```

                ```java
                unchecked();
                ```
                """);

        List<String> problems = check(List.of(doc), regions(sources));

        assertThat(problems).hasSize(2);
        assertThat(problems.get(0)).contains("guide.md:4", "sample 'acquire'", "guard.obtain(", "guard.acquire(");
        assertThat(problems.get(1)).contains("guide.md:8", "no <!-- sample: name --> marker");

        Files.writeString(doc, """
                <!-- sample: acquire -->
                ```java
                    guard.acquire("account:42",   Duration.ofSeconds(5));

                ```
                """);
        assertThat(check(List.of(doc), regions(sources))).isEmpty();
    }

    /** The repository root: the nearest directory up from here with README.md and docs/. */
    private static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs")))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("the repository root above " + Path.of("").toAbsolutePath()).isNotNull();
        return dir;
    }

    private static List<Path> documents(Path root) {
        List<Path> docs = new ArrayList<>();
        docs.add(root.resolve("README.md"));
        try (Stream<Path> files = Files.walk(root.resolve("docs"))) {
            files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    /** The tagged regions of every .java file under {@code sources}, by name. */
    private static Map<String, Region> regions(Path sources) {
        Map<String, Region> regions = new LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher tag = TAG.matcher(lines.get(i));
                    if (!tag.matches()) {
                        continue;
                    }
                    String name = tag.group(1);
                    int end = i + 1;
                    while (end < lines.size() && !isEnd(lines.get(end), name)) {
                        end++;
                    }
                    if (end == lines.size()) {
                        throw new IllegalStateException(file + ":" + (i + 1) + ": tag::" + name + "[] has no end");
                    }
                    Region previous = regions.put(name, new Region(file + ":" + (i + 1), lines.subList(i + 1, end)));
                    if (previous != null) {
                        throw new IllegalStateException("tag::" + name + "[] twice: " + previous.where() + ", " + file);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return regions;
    }

    /** docs/guide/x.md as docs/guide/x.md, README.md as README.md: the path below the repository root. */
    private static String name(Path doc) {
        Path parent = doc.toAbsolutePath().getParent();
        boolean inDocs = parent != null && parent.getParent() != null && parent.getParent().getFileName() != null
                && parent.getParent().getFileName().toString().equals("docs");
        return inDocs ? "docs/" + parent.getFileName() + "/" + doc.getFileName() : doc.getFileName().toString();
    }

    private static boolean isEnd(String line, String name) {
        Matcher end = END.matcher(line);
        return end.matches() && end.group(1).equals(name);
    }

    /** Every problem found: a marked block unlike its region, a mark without region, a Java block without mark. */
    static List<String> check(List<Path> documents, Map<String, Region> regions) {
        List<String> problems = new ArrayList<>();
        Set<String> used = new LinkedHashSet<>();
        for (Path doc : documents) {
            List<String> lines;
            try {
                lines = Files.readAllLines(doc);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            String pending = null;
            int pendingLine = 0;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                Matcher marker = MARKER.matcher(line.trim());
                if (marker.matches()) {
                    pending = marker.group(1);
                    pendingLine = i + 1;
                    continue;
                }
                if (line.trim().startsWith("```")) {
                    int close = i + 1;
                    while (close < lines.size() && !lines.get(close).trim().startsWith("```")) {
                        close++;
                    }
                    List<String> block = lines.subList(i + 1, Math.min(close, lines.size()));
                    if (line.trim().equals("```java")) {
                        String where = name(doc) + ":" + (i + 1);
                        if (pending == null) {
                            problems.add(where + ": a Java block with no <!-- sample: name --> marker before it");
                        } else {
                            used.add(pending);
                            compare(where, pending, block, regions.get(pending), problems);
                        }
                    } else if (pending != null) {
                        problems.add(name(doc) + ":" + pendingLine + ": sample '" + pending
                                + "' is not followed by a Java block");
                    }
                    pending = null;
                    i = close;
                    continue;
                }
                if (!line.isBlank() && pending != null) {
                    problems.add(name(doc) + ":" + pendingLine + ": sample '" + pending
                            + "' is not followed by a Java block");
                    pending = null;
                }
            }
        }
        Set<String> unused = new LinkedHashSet<>(regions.keySet());
        unused.removeAll(used);
        for (String name : unused) {
            problems.add(regions.get(name).where() + ": tag::" + name + "[] is shown in no document");
        }
        return problems;
    }

    private static void compare(String where, String name, List<String> block, Region region, List<String> problems) {
        if (region == null) {
            problems.add(where + ": sample '" + name + "' has no // tag::" + name + "[] in the sample sources");
            return;
        }
        List<String> shown = normalise(block);
        List<String> compiled = normalise(region.lines());
        if (shown.equals(compiled)) {
            return;
        }
        int at = 0;
        while (at < shown.size() && at < compiled.size() && shown.get(at).equals(compiled.get(at))) {
            at++;
        }
        problems.add(where + ": sample '" + name + "' differs from " + region.where() + " at its line " + (at + 1)
                + ":\n    document: " + (at < shown.size() ? shown.get(at) : "(ends)")
                + "\n    source:   " + (at < compiled.size() ? compiled.get(at) : "(ends)"));
    }

    private static List<String> normalise(List<String> lines) {
        return lines.stream().map(l -> l.trim().replaceAll("\\s+", " ")).filter(l -> !l.isEmpty())
                .collect(Collectors.toList());
    }

    /** A tagged region: where it starts and its lines. */
    record Region(String where, List<String> lines) {
    }
}
