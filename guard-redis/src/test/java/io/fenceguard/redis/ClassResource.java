package io.fenceguard.redis;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A client (pool, connection factory) opened before the first test of the class that registers it on a static
 * field with {@code @RegisterExtension}, and closed after its last test. Its {@code @Nested} classes share it: JUnit
 * calls the callbacks again for each of them, and only the class that opened it closes it.
 */
final class ClassResource<T> implements BeforeAllCallback, AfterAllCallback {

    private final Supplier<T> open;
    private final Consumer<T> close;
    private T resource;
    private String openedBy;

    private ClassResource(Supplier<T> open, Consumer<T> close) {
        this.open = open;
        this.close = close;
    }

    static <T> ClassResource<T> of(Supplier<T> open, Consumer<T> close) {
        return new ClassResource<>(Objects.requireNonNull(open), Objects.requireNonNull(close));
    }

    T get() {
        if (resource == null) {
            throw new IllegalStateException("used outside the tests of the class that registers it");
        }
        return resource;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (resource == null) {
            resource = open.get();
            openedBy = context.getUniqueId();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (resource != null && context.getUniqueId().equals(openedBy)) {
            try {
                close.accept(resource);
            } finally {
                resource = null;
                openedBy = null;
            }
        }
    }
}
