package io.fenceguard.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleDescriptor.Requires;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.fenceguard.buildchecks.PublishedModules.Module;
import io.fenceguard.buildchecks.PublishedModules.ResolvedDependency;

/**
 * Every published module is a Java module whose descriptor ({@code src/main/java/module-info.java}, read here as
 * the compiled {@code module-info.class}) exports exactly its API and SPI: each package that holds a public type,
 * except {@code internal} packages. A new package fails the build until it is exported (or made internal), and an
 * optional dependency is required {@code static}, so that the module resolves without it.
 */
class ModuleDescriptorsTest {

    @Test
    void everyPublishedModuleHasADescriptor() {
        List<String> missing = new ArrayList<>();
        for (Module module : PublishedModules.published()) {
            if (!Files.isRegularFile(descriptorFile(module))) {
                missing.add(module.directoryName() + ": add " + sourceOf(module) + " (no " + descriptorFile(module)
                        + "; build the module in the same reactor as the checks if the file exists)");
            }
        }
        assertThat(missing).as("published modules without a module descriptor").isEmpty();
    }

    @Test
    void eachModuleExportsExactlyItsNonInternalPackagesWithPublicTypes() {
        List<String> problems = new ArrayList<>();
        for (Module module : PublishedModules.published()) {
            if (!Files.isRegularFile(descriptorFile(module))) {
                continue; // reported by everyPublishedModuleHasADescriptor
            }
            ModuleDescriptor descriptor = descriptor(module);
            Map<String, Set<String>> publicTypes = publicTypesByPackage(module.classes());
            Set<String> exported = descriptor.exports().stream().map(Exports::source)
                    .collect(Collectors.toCollection(TreeSet::new));
            for (Map.Entry<String, Set<String>> entry : publicTypes.entrySet()) {
                String pkg = entry.getKey();
                if (!isInternal(pkg) && !exported.contains(pkg)) {
                    problems.add(module.directoryName() + ": add \"exports " + pkg + ";\" to " + sourceOf(module)
                            + " (it holds public types " + entry.getValue() + "), or move them to an internal"
                            + " package if they are not API");
                }
            }
            for (Exports export : descriptor.exports()) {
                String pkg = export.source();
                // Not even to another fenceguard module by name: what two modules share is the owner's API or SPI.
                if (isInternal(pkg)) {
                    problems.add(module.directoryName() + ": remove \"exports " + pkg + "\" from " + sourceOf(module)
                            + " (an internal package is its module's own: make what another module needs API of it,"
                            + " or move it to that module)");
                } else if (!publicTypes.containsKey(pkg)) {
                    problems.add(module.directoryName() + ": remove \"exports " + pkg + "\" from " + sourceOf(module)
                            + " (the package holds no public type)");
                }
            }
        }
        assertThat(problems).as("A published module exports each package that holds public types, except internal"
                + " ones, and nothing else").isEmpty();
    }

    @Test
    void optionalDependenciesAreRequiredStatic() {
        List<String> problems = new ArrayList<>();
        for (Module module : PublishedModules.published()) {
            if (!Files.isRegularFile(descriptorFile(module))) {
                continue;
            }
            Map<String, ResolvedDependency> optionalByModule = new TreeMap<>();
            for (ResolvedDependency d : module.resolvedDependencies()) {
                if (d.optional() && d.onCompileClassPath() && d.moduleName() != null) {
                    optionalByModule.put(d.moduleName(), d);
                }
            }
            for (Requires requires : descriptor(module).requires()) {
                ResolvedDependency d = optionalByModule.get(requires.name());
                if (d != null && !requires.modifiers().contains(Requires.Modifier.STATIC)) {
                    problems.add(module.directoryName() + ": " + d.key() + " is optional, so " + sourceOf(module)
                            + " must say \"requires static " + requires.name() + ";\"");
                }
            }
        }
        assertThat(problems).as("A module that requires an optional dependency without static does not resolve"
                + " without it").isEmpty();
    }

    /**
     * The admission protocol is what every fenced resource speaks, on the servlet filter, WebFlux or a message
     * listener: it brings no JDBC and no HTTP client. Its stores on a backend live beside that backend
     * (fenceguard-jdbc, fenceguard-redis), the JDK HttpClient's header in fenceguard-http-filter.
     */
    @Test
    void theAdmissionModuleRequiresNeitherJdbcNorAnHttpClient() {
        Module admission = PublishedModules.published().stream()
                .filter(m -> m.artifactId().equals("fenceguard-admission")).findFirst().orElseThrow();
        assertThat(descriptor(admission).requires()).extracting(Requires::name)
                .as("what %s requires", sourceOf(admission))
                .doesNotContain("java.sql", "java.net.http");
    }

    private static boolean isInternal(String pkg) {
        return pkg.equals("internal") || pkg.endsWith(".internal") || pkg.contains(".internal.");
    }

    private static Path descriptorFile(Module module) {
        return module.classes().resolve("module-info.class");
    }

    private static Path sourceOf(Module module) {
        return PublishedModules.root().relativize(module.mainSources().resolve("module-info.java"));
    }

    private static ModuleDescriptor descriptor(Module module) {
        try (InputStream in = Files.newInputStream(descriptorFile(module))) {
            return ModuleDescriptor.read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The public top-level types under a directory of class files, by package. */
    static Map<String, Set<String>> publicTypesByPackage(Path classes) {
        Map<String, Set<String>> types = new TreeMap<>();
        if (!Files.isDirectory(classes)) {
            return types;
        }
        try (Stream<Path> files = Files.walk(classes)) {
            files.filter(f -> f.toString().endsWith(".class")).sorted().forEach(f -> {
                String relative = classes.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "/");
                String name = relative.substring(0, relative.length() - ".class".length());
                int slash = name.lastIndexOf('/');
                String simpleName = name.substring(slash + 1);
                // Nested types are API only through their enclosing type; module-info and package-info are no types.
                if (slash < 0 || simpleName.contains("$") || simpleName.equals("package-info")) {
                    return;
                }
                if (ClassFiles.isPublic(f)) {
                    types.computeIfAbsent(name.substring(0, slash).replace('/', '.'), k -> new TreeSet<>())
                            .add(simpleName);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return types;
    }
}
