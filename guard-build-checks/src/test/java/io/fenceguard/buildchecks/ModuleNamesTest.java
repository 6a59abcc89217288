package io.fenceguard.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.buildchecks.PublishedModules.Module;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The one naming rule of README's module table: the directory {@code guard-<name>} holds the artifact
 * {@code fenceguard-<name>}, whose Java module and root package are {@code io.fenceguard.<name>} with each {@code -}
 * read as {@code .}. The design card's schema directory is plain {@code db}; the examples keep their directory as
 * their artifact id.
 */
class ModuleNamesTest {

    /** Directories the design card names without the prefix, and the name they stand for. */
    private static final Map<String, String> CARD_NAMES = Map.of("db", "db");

    @Test
    void everyModuleFollowsTheNamingRule() {
        List<String> problems = new ArrayList<>();
        for (Module module : PublishedModules.all()) {
            String directory = module.directoryName();
            if (directory.startsWith("example-")) {
                if (!module.artifactId().equals(directory)) {
                    problems.add(directory + ": an example's artifact id is its directory, not " + module.artifactId());
                }
                continue;
            }
            String name = CARD_NAMES.containsKey(directory) ? CARD_NAMES.get(directory)
                    : directory.startsWith("guard-") ? directory.substring("guard-".length()) : null;
            if (name == null) {
                problems.add(directory + ": a module's directory is guard-<name>");
                continue;
            }
            if (!module.artifactId().equals("fenceguard-" + name)) {
                problems.add(directory + ": its artifact must be fenceguard-" + name + ", not " + module.artifactId());
            }
            Path descriptor = module.classes().resolve("module-info.class");
            if (module.published() && Files.isRegularFile(descriptor)) {
                String expected = "io.fenceguard." + name.replace('-', '.');
                String actual = read(descriptor).name();
                if (!actual.equals(expected)) {
                    problems.add(directory + ": its Java module must be " + expected + ", not " + actual);
                }
                problems.addAll(packagesOutside(module, expected));
            }
        }
        assertThat(PublishedModules.all()).as("modules found").isNotEmpty();
        assertThat(problems).as("README's module table states the rule").isEmpty();
    }

    /** Packages of the module's main sources that are not its root package or below it. */
    private static List<String> packagesOutside(Module module, String root) {
        Path sources = module.mainSources();
        Path rootDir = sources.resolve(root.replace('.', '/'));
        List<String> outside = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            files.filter(f -> f.toString().endsWith(".java") && !f.getFileName().toString().equals("module-info.java"))
                    .filter(f -> !f.startsWith(rootDir))
                    .forEach(f -> outside.add(module.directoryName() + ": " + sources.relativize(f)
                            + " lies outside its root package " + root));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return outside;
    }

    private static ModuleDescriptor read(Path descriptor) {
        try (InputStream in = Files.newInputStream(descriptor)) {
            return ModuleDescriptor.read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
