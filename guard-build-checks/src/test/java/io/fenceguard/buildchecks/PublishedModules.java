package io.fenceguard.buildchecks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The modules the root pom lists, read from their poms and build output: which are published, their direct
 * dependencies as declared, and their resolved dependencies as the build wrote them
 * ({@code target/build-checks/dependencies.txt}, by the root pom's {@code list-dependencies-for-build-checks}).
 */
final class PublishedModules {

    /**
     * A dependency as Maven resolved it for a module: its coordinates, scope, effective optionality, file, and the
     * name it has as a Java module (null when Maven gave none); automatic when the jar has no module descriptor.
     */
    record ResolvedDependency(String groupId, String artifactId, String scope, boolean optional, Path file,
                              String moduleName, boolean automaticModule) {

        String key() {
            return groupId + ":" + artifactId;
        }

        /** What a user of the module gets on its class path: compile and runtime, not optional. */
        boolean reachesUsers() {
            return !optional && (scope.equals("compile") || scope.equals("runtime"));
        }

        /** On the module's own compile class path: what its classes may name. */
        boolean onCompileClassPath() {
            return !scope.equals("test");
        }
    }

    /** A dependency as declared in a module's pom. */
    record DeclaredDependency(String groupId, String artifactId, String scope, boolean optional) {

        String key() {
            return groupId + ":" + artifactId;
        }
    }

    /** One module of the reactor. */
    record Module(String directoryName, Path directory, String artifactId, boolean published,
                  List<DeclaredDependency> declaredDependencies) {

        Path classes() {
            return directory.resolve("target/classes");
        }

        Path mainSources() {
            return directory.resolve("src/main/java");
        }

        Path testSources() {
            return directory.resolve("src/test/java");
        }

        /** The module's resolved dependencies; fails when the build has not written them. */
        List<ResolvedDependency> resolvedDependencies() {
            Path list = directory.resolve("target/build-checks/dependencies.txt");
            if (!Files.isRegularFile(list)) {
                throw new IllegalStateException(list + " is missing: build " + artifactId
                        + " in the same reactor as the checks (e.g. ./mvnw -pl guard-build-checks -am verify)");
            }
            List<ResolvedDependency> dependencies = new ArrayList<>();
            for (String line : readLines(list)) {
                Matcher m = RESOLVED.matcher(line.strip());
                if (m.matches()) {
                    dependencies.add(new ResolvedDependency(m.group(1), m.group(2), m.group(3),
                            m.group(5) != null, Path.of(m.group(4)), m.group(6), m.group(7) != null));
                }
            }
            return dependencies;
        }
    }

    /*
     * groupId:artifactId:type[:classifier]:version:scope:/absolute/file[ (optional)][ -- module name[ [auto]]] where
     * [auto] is "[auto]" (Automatic-Module-Name in the manifest) or "(auto)" (name derived from the file name).
     */
    private static final Pattern RESOLVED = Pattern.compile(
            "([^:\\s]+):([^:\\s]+):[^:\\s]+(?::[^:\\s]+)?:[^:\\s]+:(compile|runtime|provided|system|test):"
                    + "(.+?)( \\(optional\\))?(?: -- module (\\S+)( [\\[(]auto[\\])])?)?");

    private PublishedModules() {
    }

    /** The root of the reactor: the tests run in fenceguard-build-checks, one level below it. */
    static Path root() {
        Path here = Path.of("").toAbsolutePath();
        Path root = Files.isRegularFile(here.resolve("guard-build-checks/pom.xml")) ? here : here.getParent();
        if (!Files.isRegularFile(root.resolve("pom.xml"))) {
            throw new IllegalStateException("no root pom.xml above " + here);
        }
        return root;
    }

    /** Every module the root pom lists. */
    static List<Module> all() {
        Path root = root();
        Document rootPom = parse(root.resolve("pom.xml"));
        List<Module> modules = new ArrayList<>();
        for (Element module : children(child(rootPom.getDocumentElement(), "modules"), "module")) {
            String name = module.getTextContent().strip();
            Path directory = root.resolve(name);
            Element project = parse(directory.resolve("pom.xml")).getDocumentElement();
            modules.add(new Module(name, directory, text(project, "artifactId"), isPublished(project),
                    declaredDependencies(project)));
        }
        return modules;
    }

    /** The modules users get: jar modules under the parent pom that do not set fenceguard.skip-publish. */
    static List<Module> published() {
        return all().stream().filter(Module::published).toList();
    }

    private static boolean isPublished(Element project) {
        Element parent = child(project, "parent");
        boolean underParent = parent != null && "fenceguard-parent".equals(text(parent, "artifactId"));
        String packaging = text(project, "packaging");
        Element properties = child(project, "properties");
        boolean skipped = properties != null && "true".equals(text(properties, "fenceguard.skip-publish"));
        return underParent && (packaging == null || packaging.equals("jar")) && !skipped;
    }

    private static List<DeclaredDependency> declaredDependencies(Element project) {
        List<DeclaredDependency> dependencies = new ArrayList<>();
        for (Element d : children(child(project, "dependencies"), "dependency")) {
            String scope = text(d, "scope");
            dependencies.add(new DeclaredDependency(text(d, "groupId"), text(d, "artifactId"),
                    scope == null ? "compile" : scope, "true".equals(text(d, "optional"))));
        }
        return dependencies;
    }

    /** The fully qualified names of the classes under a directory of class files. */
    static Set<String> classNames(Path classes) {
        if (!Files.isDirectory(classes)) {
            return Set.of();
        }
        try (Stream<Path> files = Files.walk(classes)) {
            Set<String> names = new LinkedHashSet<>();
            files.filter(f -> f.toString().endsWith(".class")).sorted().forEach(f -> {
                String relative = classes.relativize(f).toString().replace(f.getFileSystem().getSeparator(), ".");
                String name = relative.substring(0, relative.length() - ".class".length());
                if (!name.endsWith("module-info") && !name.endsWith("package-info")) {
                    names.add(name);
                }
            });
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Document parse(Path pom) {
        try {
            return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + pom, e);
        }
    }

    private static Element child(Element parent, String name) {
        if (parent == null) {
            return null;
        }
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node node = nodes.item(i);
            if (node instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> elements = new ArrayList<>();
        if (parent != null) {
            NodeList nodes = parent.getChildNodes();
            for (int i = 0; i < nodes.getLength(); i++) {
                if (nodes.item(i) instanceof Element e && e.getTagName().equals(name)) {
                    elements.add(e);
                }
            }
        }
        return elements;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().strip();
    }
}
