package io.fenceguard.spring.boot.autoconfigure.aot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import java.lang.reflect.Proxy;
import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * The starter's runtime hints cover what it does at run time: every JDK proxy a fenced DataSource hands out, each
 * interface method its handlers call on the driver's objects, every migration script; and Spring finds them.
 */
class FenceguardRuntimeHintsTest {

    private final RuntimeHints hints = registered();

    private static RuntimeHints registered() {
        RuntimeHints hints = new RuntimeHints();
        List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                .load(RuntimeHintsRegistrar.class);
        assertThat(registrars).hasAtLeastOneElementOfType(FenceguardRuntimeHints.class);
        registrars.forEach(r -> r.registerHints(hints, FenceguardRuntimeHintsTest.class.getClassLoader()));
        return hints;
    }

    @Test
    void everyProxyOfAFencedConnectionAndEveryMethodItCallsIsHinted() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:hints" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (Connection physical = h2.getConnection(); Statement create = physical.createStatement()) {
            create.execute("CREATE TABLE accounts (id INT PRIMARY KEY, balance INT, current_token BIGINT)");
        }
        FencedDataSource fenced = FencedDataSource.wrap(h2, FencingConfig.builder().fence("accounts").build());
        List<Object> handedOut = new ArrayList<>();
        try (Connection connection = fenced.getConnection()) {
            handedOut.add(connection);
            try (Statement statement = connection.createStatement()) {
                handedOut.add(statement);
                try (ResultSet rows = statement.executeQuery("SELECT id FROM accounts")) {
                    handedOut.add(rows);
                }
            }
            try (PreparedStatement select = connection.prepareStatement("SELECT balance FROM accounts WHERE id = ?")) {
                handedOut.add(select);
            }
            try (CallableStatement call = connection.prepareCall("CALL 1")) {
                handedOut.add(call);
            }
            handedOut.add(connection.getMetaData());
            Array array = connection.createArrayOf("INTEGER", new Object[] {1});
            handedOut.add(array);
        }
        assertThat(handedOut).allSatisfy(object -> {
            assertThat(Proxy.isProxyClass(object.getClass())).as("%s is a JDK proxy", object.getClass()).isTrue();
            Class<?>[] interfaces = object.getClass().getInterfaces();
            assertThat(RuntimeHintsPredicates.proxies().forInterfaces(interfaces)).as("proxy of %s", List.of(interfaces))
                    .accepts(hints);
            for (Class<?> type : interfaces) {
                if (type.getPackageName().equals("java.sql")) {
                    for (var method : type.getMethods()) {
                        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method))
                                .as("%s.%s", type.getSimpleName(), method.getName()).accepts(hints);
                    }
                }
            }
        });
    }

    @Test
    void everyMigrationScriptIsHinted() throws Exception {
        Resource[] scripts = new PathMatchingResourcePatternResolver().getResources("classpath*:fenceguard/db/migration/**/*.sql");
        assertThat(scripts).isNotEmpty();
        for (Resource script : scripts) {
            String url = script.getURL().toString();
            String path = url.substring(url.indexOf("fenceguard/db/migration/"));
            assertThat(RuntimeHintsPredicates.resource().forResource(path)).as(path).accepts(hints);
        }
    }
}
