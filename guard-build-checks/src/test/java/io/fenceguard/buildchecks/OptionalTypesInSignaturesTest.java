package io.fenceguard.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;

import org.junit.jupiter.api.Test;

import io.fenceguard.buildchecks.PublishedModules.DeclaredDependency;
import io.fenceguard.buildchecks.PublishedModules.Module;
import io.fenceguard.buildchecks.PublishedModules.ResolvedDependency;

/**
 * No optional dependency's type in a signature of a class that is loaded without it.
 *
 * <p>Spring introspects a bean's class (declared methods, constructors, fields, generic types); if one of them
 * names a type of an optional dependency the application does not have, start-up fails with
 * {@code NoClassDefFoundError}. So every class of every published module is loaded, without initialisation,
 * by a class loader that lacks that module's optional dependencies, first all of them, then each direct one
 * in turn, and introspected the same way. Exempt are the packages dedicated to a dependency
 * ({@code optional-dependency-packages.properties}) while that dependency is absent, and classes whose
 * {@code @ConditionalOnClass} (own or enclosing) names a class that is absent: Spring Boot does not load them then.
 */
class OptionalTypesInSignaturesTest {

    private static final String CONDITIONAL_ON_CLASS =
            "org.springframework.boot.autoconfigure.condition.ConditionalOnClass";

    /** A class that cannot be introspected without some optional dependencies. */
    record Violation(String module, String className, String missingType, String missingFrom, String without) {

        @Override
        public String toString() {
            return module + ": " + className + " names " + missingType + " (" + missingFrom + ")"
                    + ", which is missing " + without;
        }
    }

    /** A class path to check a module's classes with: all of its compile class path but the hidden part. */
    record Setting(String description, Set<Path> hiddenFiles, Set<String> hiddenArtifacts) {
    }

    @Test
    void publishedClassesLoadAndIntrospectWithoutTheirOptionalDependencies() throws Exception {
        Map<String, Set<String>> dedicatedPackages = dedicatedPackages();
        List<Violation> violations = new ArrayList<>();
        int checkedClasses = 0;
        for (Module module : PublishedModules.published()) {
            Set<String> classNames = PublishedModules.classNames(module.classes());
            checkedClasses += classNames.size();
            List<ResolvedDependency> dependencies = module.resolvedDependencies();
            List<Path> classPath = new ArrayList<>();
            classPath.add(module.classes());
            dependencies.stream().filter(ResolvedDependency::onCompileClassPath).map(ResolvedDependency::file)
                    .forEach(classPath::add);
            Map<String, List<String>> conditions;
            try (URLClassLoader complete = loader(classPath)) {
                conditions = conditionalOnClass(classNames, complete);
            }
            for (Setting setting : settings(module, dependencies)) {
                violations.addAll(check(module, classNames, classPath, dependencies, setting, dedicatedPackages,
                        conditions));
            }
        }
        assertThat(checkedClasses).as("classes found in the published modules' target/classes").isPositive();
        assertThat(violations)
                .as("Classes that a user without an optional dependency cannot load or introspect (Spring fails"
                        + " with NoClassDefFoundError on them). Move the member that names the type into a package"
                        + " dedicated to that dependency (listed in optional-dependency-packages.properties of"
                        + " fenceguard-build-checks), or guard the class with @ConditionalOnClass.")
                .isEmpty();
    }

    /** First without every optional (or provided) dependency at once, then without each direct optional one. */
    private static List<Setting> settings(Module module, List<ResolvedDependency> dependencies) {
        List<Setting> settings = new ArrayList<>();
        Set<Path> optionalFiles = new LinkedHashSet<>();
        Set<String> optionalArtifacts = new LinkedHashSet<>();
        for (ResolvedDependency d : dependencies) {
            if (d.onCompileClassPath() && !d.reachesUsers()) {
                optionalFiles.add(d.file());
                optionalArtifacts.add(d.key());
            }
        }
        if (optionalFiles.isEmpty()) {
            return settings;
        }
        settings.add(new Setting("without any optional dependency", optionalFiles, optionalArtifacts));
        for (DeclaredDependency declared : module.declaredDependencies()) {
            if (declared.optional() || declared.scope().equals("provided")) {
                Set<Path> files = new LinkedHashSet<>();
                for (ResolvedDependency d : dependencies) {
                    if (d.key().equals(declared.key()) && d.onCompileClassPath()) {
                        files.add(d.file());
                    }
                }
                if (!files.isEmpty()) {
                    settings.add(new Setting("without " + declared.key(), files, Set.of(declared.key())));
                }
            }
        }
        return settings;
    }

    private static List<Violation> check(Module module, Set<String> classNames, List<Path> classPath,
                                         List<ResolvedDependency> dependencies, Setting setting,
                                         Map<String, Set<String>> dedicatedPackages,
                                         Map<String, List<String>> conditions) throws IOException {
        List<Path> visible = classPath.stream().filter(p -> !setting.hiddenFiles().contains(p)).toList();
        List<Violation> violations = new ArrayList<>();
        try (URLClassLoader withoutHidden = loader(visible)) {
            for (String className : classNames) {
                if (isDedicatedToHidden(className, setting, dedicatedPackages)
                        || isSkippedByItsCondition(conditions.getOrDefault(className, List.of()), withoutHidden)) {
                    continue;
                }
                String missing = missingType(className, withoutHidden);
                if (missing != null) {
                    violations.add(new Violation(module.artifactId(), className, missing,
                            whereFrom(missing, setting.hiddenFiles(), dependencies), setting.description()));
                }
            }
        }
        return violations;
    }

    private static boolean isDedicatedToHidden(String className, Setting setting,
                                               Map<String, Set<String>> dedicatedPackages) {
        for (Map.Entry<String, Set<String>> entry : dedicatedPackages.entrySet()) {
            String dedicated = entry.getKey();
            boolean inside = className.equals(dedicated) || className.startsWith(dedicated + ".")
                    || className.startsWith(dedicated + "$");
            if (inside && entry.getValue().stream().anyMatch(setting.hiddenArtifacts()::contains)) {
                return true;
            }
        }
        return false;
    }

    /** The classes each class's @ConditionalOnClass, own or of an enclosing class, names. */
    private static Map<String, List<String>> conditionalOnClass(Set<String> classNames, ClassLoader complete) {
        Map<String, List<String>> conditions = new LinkedHashMap<>();
        for (String className : classNames) {
            Class<?> type;
            try {
                type = Class.forName(className, false, complete);
            } catch (ClassNotFoundException | LinkageError e) {
                continue; // reported by the check itself
            }
            List<String> guards = new ArrayList<>();
            for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
                for (Annotation annotation : c.getDeclaredAnnotations()) {
                    if (annotation.annotationType().getName().equals(CONDITIONAL_ON_CLASS)) {
                        guards.addAll(guardedClassNames(annotation));
                    }
                }
            }
            if (!guards.isEmpty()) {
                conditions.put(className, guards);
            }
        }
        return conditions;
    }

    /** Spring Boot reads @ConditionalOnClass without loading the class, and skips it if a named class is absent. */
    private static boolean isSkippedByItsCondition(List<String> guards, ClassLoader withoutHidden) {
        for (String guard : guards) {
            try {
                Class.forName(guard, false, withoutHidden);
            } catch (ClassNotFoundException | LinkageError e) {
                return true;
            }
        }
        return false;
    }

    private static List<String> guardedClassNames(Annotation conditionalOnClass) {
        try {
            List<String> names = new ArrayList<>();
            Method value = conditionalOnClass.annotationType().getMethod("value");
            for (Class<?> c : (Class<?>[]) value.invoke(conditionalOnClass)) {
                names.add(c.getName());
            }
            Method name = conditionalOnClass.annotationType().getMethod("name");
            names.addAll(Arrays.asList((String[]) name.invoke(conditionalOnClass)));
            return names;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + conditionalOnClass, e);
        }
    }

    /** What Spring's introspection of the class needs; the name of the type it lacks, or null. */
    static String missingType(String className, ClassLoader loader) {
        try {
            Class<?> type = Class.forName(className, false, loader);
            type.getDeclaredFields();
            type.getDeclaredMethods();
            type.getDeclaredConstructors();
            Set<Type> seen = new HashSet<>();
            resolve(type.getGenericSuperclass(), seen);
            for (Type t : type.getGenericInterfaces()) {
                resolve(t, seen);
            }
            for (Type t : type.getTypeParameters()) {
                resolve(t, seen);
            }
            for (Field field : type.getDeclaredFields()) {
                if (isApi(field)) {
                    resolve(field.getGenericType(), seen);
                }
            }
            List<Executable> executables = new ArrayList<>(Arrays.asList(type.getDeclaredMethods()));
            executables.addAll(Arrays.asList(type.getDeclaredConstructors()));
            for (Executable executable : executables) {
                if (isApi(executable)) {
                    if (executable instanceof Method method) {
                        resolve(method.getGenericReturnType(), seen);
                    }
                    for (Type t : executable.getGenericParameterTypes()) {
                        resolve(t, seen);
                    }
                    for (Type t : executable.getGenericExceptionTypes()) {
                        resolve(t, seen);
                    }
                    for (Type t : executable.getTypeParameters()) {
                        resolve(t, seen);
                    }
                }
            }
            return null;
        } catch (NoClassDefFoundError e) {
            // "redis/clients/jedis/util/Pool", or an array descriptor "[Lorg/aopalliance/aop/Advice;"
            return e.getMessage() == null ? e.toString()
                    : e.getMessage().replace('/', '.').replaceAll("^\\[+L(.*);$", "$1");
        } catch (TypeNotPresentException e) {
            return e.typeName();
        } catch (ClassNotFoundException e) {
            return e.getMessage();
        }
    }

    private static boolean isApi(Member member) {
        return (member.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED)) != 0;
    }

    /** Type arguments, bounds and components are resolved lazily: walk them all. */
    private static void resolve(Type type, Set<Type> seen) {
        if (type == null || !seen.add(type)) {
            return;
        }
        if (type instanceof ParameterizedType p) {
            resolve(p.getRawType(), seen);
            resolve(p.getOwnerType(), seen);
            for (Type t : p.getActualTypeArguments()) {
                resolve(t, seen);
            }
        } else if (type instanceof WildcardType w) {
            for (Type t : w.getUpperBounds()) {
                resolve(t, seen);
            }
            for (Type t : w.getLowerBounds()) {
                resolve(t, seen);
            }
        } else if (type instanceof GenericArrayType a) {
            resolve(a.getGenericComponentType(), seen);
        } else if (type instanceof TypeVariable<?> v) {
            for (Type t : v.getBounds()) {
                resolve(t, seen);
            }
        }
    }

    /** The artifact that holds a missing type, for the message. */
    private static String whereFrom(String typeName, Set<Path> hidden, List<ResolvedDependency> dependencies) {
        String entry = typeName.replace('.', '/') + ".class";
        for (ResolvedDependency d : dependencies) {
            if (hidden.contains(d.file()) && contains(d.file(), entry)) {
                return d.key() + ", " + (d.optional() ? "optional" : d.scope());
            }
        }
        return "not on the module's class path";
    }

    private static boolean contains(Path file, String entry) {
        if (Files.isDirectory(file)) {
            return Files.isRegularFile(file.resolve(entry));
        }
        try (JarFile jar = new JarFile(file.toFile())) {
            return jar.getEntry(entry) != null;
        } catch (IOException e) {
            return false;
        }
    }

    private static URLClassLoader loader(List<Path> classPath) {
        URL[] urls = classPath.stream().map(p -> {
            try {
                return p.toUri().toURL();
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException(p.toString(), e);
            }
        }).toArray(URL[]::new);
        // The platform loader as parent: the JDK, and nothing of this test's own class path.
        return new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
    }

    static Map<String, Set<String>> dedicatedPackages() {
        Properties properties = new Properties();
        try (InputStream in = OptionalTypesInSignaturesTest.class
                .getResourceAsStream("/optional-dependency-packages.properties")) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Set<String>> packages = new LinkedHashMap<>();
        for (String name : new TreeSet<>(properties.stringPropertyNames())) {
            Set<String> artifacts = new LinkedHashSet<>();
            for (String artifact : properties.getProperty(name).split(",")) {
                artifacts.add(artifact.strip());
            }
            packages.put(name, artifacts);
        }
        return packages;
    }
}
