package io.fenceguard.spring.boot.autoconfigure.aot;

import java.util.List;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * What the starter does at run time that a native image only allows when told at build time (registered in
 * {@code META-INF/spring/aot.factories}): the guard's migration scripts, which Flyway finds by scanning the class
 * path, and the JDBC proxies of a fenced {@code DataSource}, which are JDK proxies whose handlers call the driver's
 * methods reflectively. Each part only when its module is on the class path. A JVM started with
 * {@code -Dspring.aot.enabled=true} needs none of this; a native image does.
 */
public class FenceguardRuntimeHints implements RuntimeHintsRegistrar {

    /** Where fenceguard-db keeps its scripts, one folder per database (FenceguardMigrations.LOCATION_ROOT). */
    static final String MIGRATIONS = "fenceguard/db/migration/**";

    /** The JDBC objects a fenced connection hands out as proxies: each interface alone, the connection as a fence. */
    static final List<String> DRIVER_OBJECTS = List.of("java.sql.Statement", "java.sql.PreparedStatement",
            "java.sql.CallableStatement", "java.sql.ResultSet", "java.sql.DatabaseMetaData", "java.sql.Array");

    static final String CONNECTION = "java.sql.Connection";
    static final String FENCED_CONNECTION = "io.fenceguard.jdbc.FencedConnection";

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        if (ClassUtils.isPresent("io.fenceguard.db.FenceguardMigrations", classLoader)) {
            hints.resources().registerPattern(MIGRATIONS);
        }
        if (ClassUtils.isPresent(FENCED_CONNECTION, classLoader)) {
            hints.proxies().registerJdkProxy(TypeReference.of(CONNECTION), TypeReference.of(FENCED_CONNECTION));
            for (String type : DRIVER_OBJECTS) {
                hints.proxies().registerJdkProxy(TypeReference.of(type));
            }
            // The handlers hand each call on to the driver's object through the interface's Method.
            hints.reflection().registerType(TypeReference.of(CONNECTION), MemberCategory.INVOKE_PUBLIC_METHODS);
            hints.reflection().registerType(TypeReference.of("java.sql.Wrapper"), MemberCategory.INVOKE_PUBLIC_METHODS);
            for (String type : DRIVER_OBJECTS) {
                hints.reflection().registerType(TypeReference.of(type), MemberCategory.INVOKE_PUBLIC_METHODS);
            }
        }
    }
}
