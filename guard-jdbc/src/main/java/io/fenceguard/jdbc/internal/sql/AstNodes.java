package io.fenceguard.jdbc.internal.sql;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds every node of given types anywhere in a JSqlParser tree, whatever clause holds it (LIMIT,
 * RETURNING, CTEs, conflict actions). The library's visitors skip some clauses, and a missed JDBC
 * parameter would shift the application's parameter indexes; walking the fields cannot miss one.
 * Runs once per distinct SQL string (plans are cached).
 */
final class AstNodes {

    private static final String PACKAGE = "net.sf.jsqlparser.";
    private static final ClassValue<List<Field>> FIELDS = new ClassValue<>() {
        @Override
        protected List<Field> computeValue(Class<?> type) {
            List<Field> fields = new ArrayList<>();
            for (Class<?> k = type; k != null && k.getName().startsWith(PACKAGE); k = k.getSuperclass()) {
                for (Field field : k.getDeclaredFields()) {
                    if (!Modifier.isStatic(field.getModifiers()) && !field.getType().isPrimitive()
                            && field.getType() != String.class) {
                        field.setAccessible(true);
                        fields.add(field);
                    }
                }
            }
            return List.copyOf(fields);
        }
    };

    private AstNodes() {
    }

    /** Every distinct node that is an instance of one of {@code types}, in field order. */
    static List<Object> collect(Object root, List<Class<?>> types) {
        List<Object> found = new ArrayList<>();
        walk(root, Collections.newSetFromMap(new IdentityHashMap<>()), types, found);
        return found;
    }

    private static void walk(Object node, Set<Object> seen, List<Class<?>> types, List<Object> found) {
        if (node == null || node instanceof Enum<?> || !seen.add(node)) {
            return;
        }
        for (Class<?> type : types) {
            if (type.isInstance(node)) {
                found.add(node);
            }
        }
        if (node instanceof Collection<?> collection) {
            for (Object element : collection) {
                walk(element, seen, types, found);
            }
            if (!node.getClass().getName().startsWith(PACKAGE)) {
                return;
            }
        } else if (node instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                walk(entry.getKey(), seen, types, found);
                walk(entry.getValue(), seen, types, found);
            }
            return;
        } else if (node instanceof Object[] array) {
            for (Object element : array) {
                walk(element, seen, types, found);
            }
            return;
        }
        if (!node.getClass().getName().startsWith(PACKAGE)) {
            return;
        }
        for (Field field : FIELDS.get(node.getClass())) {
            try {
                walk(field.get(node), seen, types, found);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read " + field, e);
            }
        }
    }
}
