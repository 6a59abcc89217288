package io.fenceguard.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.fenceguard.buildchecks.PublishedModules.DeclaredDependency;
import io.fenceguard.buildchecks.PublishedModules.Module;
import io.fenceguard.buildchecks.PublishedModules.ResolvedDependency;

/**
 * What the published modules may use of each other: another module's {@code internal} package is not API, not even
 * through a qualified export ({@link ModuleDescriptorsTest} refuses those), and the
 * Redis, messaging and reactor modules must not bring the servlet module to their users.
 */
class ModuleBoundariesTest {

    /** The modules that must not depend on the servlet module (in main code; their tests may use it). */
    private static final Set<String> WITHOUT_SERVLET_MODULE =
            Set.of("fenceguard-redis", "fenceguard-messaging", "fenceguard-reactor");

    private static final String SERVLET_MODULE = "io.fenceguard:fenceguard-http-filter";

    /*
     * Violations allowed for a while (none now). An entry that no longer occurs is named in the test output, so
     * that the lists only shrink.
     */
    private static final Set<String> INTERNAL_USE_ALLOWED_TEMPORARILY = Set.of();
    private static final Set<String> SERVLET_MODULE_ALLOWED_TEMPORARILY = Set.of();

    // io.fenceguard.<one or more segments>.internal, as a whole word: in imports, qualified names, package lines.
    private static final Pattern INTERNAL_PACKAGE = Pattern.compile("\\bio\\.fenceguard\\.(?:[a-z0-9_]+\\.)+?internal\\b");

    @Test
    void everyPublishedModuleIsBuiltBeforeTheseChecks() {
        Module checks = PublishedModules.all().stream()
                .filter(m -> m.artifactId().equals("fenceguard-build-checks")).findFirst().orElseThrow();
        Set<String> dependencies = new TreeSet<>();
        for (DeclaredDependency d : checks.declaredDependencies()) {
            dependencies.add(d.artifactId());
        }
        List<String> published = PublishedModules.published().stream().map(Module::artifactId).toList();
        assertThat(published).as("published modules found in the root pom").isNotEmpty();
        assertThat(dependencies).as("guard-build-checks/pom.xml must depend on every published module,"
                + " so that the reactor builds them before these checks").containsAll(published);
    }

    @Test
    void noModuleUsesAnotherModulesInternalPackage() {
        Map<String, String> owners = internalPackageOwners();
        Map<String, Set<Path>> violations = new TreeMap<>();
        for (Module module : PublishedModules.published()) {
            for (Path source : javaFiles(module.mainSources(), module.testSources())) {
                Matcher m = INTERNAL_PACKAGE.matcher(read(source));
                while (m.find()) {
                    String owner = owners.getOrDefault(m.group(), "no module");
                    if (!owner.equals(module.directoryName())) {
                        violations.computeIfAbsent(module.directoryName() + " uses " + m.group() + " (of " + owner
                                + ")", k -> new TreeSet<>()).add(PublishedModules.root().relativize(source));
                    }
                }
            }
        }
        reportTemporarilyAllowed("internal packages", violations.keySet(), INTERNAL_USE_ALLOWED_TEMPORARILY);
        violations.keySet().removeAll(INTERNAL_USE_ALLOWED_TEMPORARILY);
        assertThat(violations).as("A module's internal package is for that module only: make what the other"
                + " module needs API (or SPI) of its owner, or move it").isEmpty();
    }

    @Test
    void redisMessagingAndReactorDoNotDependOnTheServletModule() {
        Set<String> violations = new TreeSet<>();
        List<String> checked = new ArrayList<>();
        for (Module module : PublishedModules.published()) {
            if (WITHOUT_SERVLET_MODULE.contains(module.artifactId())) {
                checked.add(module.artifactId());
                for (ResolvedDependency d : module.resolvedDependencies()) {
                    if (d.onCompileClassPath() && d.key().equals(SERVLET_MODULE)) {
                        violations.add(module.artifactId() + " depends on " + SERVLET_MODULE);
                    }
                }
            }
        }
        assertThat(checked).as("modules found").containsExactlyInAnyOrderElementsOf(WITHOUT_SERVLET_MODULE);
        reportTemporarilyAllowed("the servlet module", violations, SERVLET_MODULE_ALLOWED_TEMPORARILY);
        violations.removeAll(SERVLET_MODULE_ALLOWED_TEMPORARILY);
        assertThat(violations).as("fenceguard-http-filter is the servlet module: what these modules share with it"
                + " belongs in fenceguard-core or fenceguard-admission (directly or transitively, optional or not)")
                .isEmpty();
    }

    /** Which module's src/main/java holds each io.fenceguard...internal package. */
    private static Map<String, String> internalPackageOwners() {
        Map<String, String> owners = new TreeMap<>();
        for (Module module : PublishedModules.all()) {
            Path sources = module.mainSources();
            if (!Files.isDirectory(sources)) {
                continue;
            }
            try (Stream<Path> dirs = Files.walk(sources)) {
                dirs.filter(Files::isDirectory).filter(d -> d.getFileName().toString().equals("internal"))
                        .forEach(d -> owners.put(sources.relativize(d).toString()
                                .replace(d.getFileSystem().getSeparator(), "."), module.directoryName()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return owners;
    }

    /** Says which temporary entries no longer occur, so that the list only shrinks. */
    private static void reportTemporarilyAllowed(String what, Set<String> found, Set<String> allowed) {
        for (String entry : allowed) {
            System.out.println((found.contains(entry) ? "Allowed temporarily (" + what + "): "
                    : "No longer occurs, remove it from the temporary list (" + what + "): ") + entry);
        }
    }

    private static List<Path> javaFiles(Path... roots) {
        List<Path> files = new ArrayList<>();
        for (Path root : roots) {
            if (Files.isDirectory(root)) {
                try (Stream<Path> walk = Files.walk(root)) {
                    walk.filter(f -> f.toString().endsWith(".java")).sorted().forEach(files::add);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return files;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
