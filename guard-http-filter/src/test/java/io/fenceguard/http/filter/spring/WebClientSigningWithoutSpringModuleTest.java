package io.fenceguard.http.filter.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.admission.Destinations;
import io.fenceguard.admission.OutboundFence;
import io.fenceguard.admission.SigningKeys;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * Request signatures on {@code WebClient} calls need no fenceguard-spring: the filter (fenceguard-reactor's, which
 * signs the bodies next to it) is made, signing or not, in a class loader without fenceguard-spring.
 */
class WebClientSigningWithoutSpringModuleTest {

    /** Makes the filter in the class loader that loaded this class. */
    public static final class MakeFilter implements Callable<Object> {
        private final boolean signRequests;

        public MakeFilter(boolean signRequests) {
            this.signRequests = signRequests;
        }

        @Override
        public Object call() {
            OutboundFence fence = OutboundFence.of(Destinations.of("http://audit.internal"), SigningKeys.of(
                    Map.of("k1", "key-0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8)), "k1"));
            return new FencingExchangeFilterFunction(signRequests ? fence.withRequestSignatures() : fence);
        }
    }

    @Test
    void aSigningFilterNeedsNoFenceguardSpring() throws Exception {
        List<Path> classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of).toList();
        List<Path> withoutSpringModule = classPath.stream().filter(e -> !isFenceguardSpring(e)).toList();
        assertThat(classPath.size() - withoutSpringModule.size()).as("fenceguard-spring on " + classPath).isEqualTo(1);
        try (URLClassLoader without = loader(withoutSpringModule)) {
            assertThat(make(without, true).getClass().getName()).isEqualTo(FencingExchangeFilterFunction.class.getName());
            assertThat(make(without, false).getClass().getName()).isEqualTo(FencingExchangeFilterFunction.class.getName());
        }
    }

    private static Object make(ClassLoader loader, boolean signRequests) throws Exception {
        Class<?> maker = Class.forName(MakeFilter.class.getName(), true, loader);
        assertThat(maker.getClassLoader()).as("loaded apart from the test's class loader").isSameAs(loader);
        return ((Callable<?>) maker.getConstructor(boolean.class).newInstance(signRequests)).call();
    }

    private static boolean isFenceguardSpring(Path entry) {
        // guard-spring/target/classes in a reactor build, fenceguard-spring-<version>.jar otherwise
        String name = entry.getFileName().toString();
        String parent = entry.getParent() == null ? "" : entry.getParent().toString();
        return name.startsWith("fenceguard-spring-0") || name.startsWith("fenceguard-spring-1")
                || (name.equals("classes") && (parent.endsWith(File.separator + "guard-spring" + File.separator + "target")
                        || parent.endsWith(File.separator + "fenceguard-spring" + File.separator + "target")));
    }

    /** A loader of its own over {@code classPath}, apart from the test's. */
    private static URLClassLoader loader(List<Path> classPath) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (Path entry : classPath) {
            urls.add(entry.toUri().toURL());
        }
        return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }
}
