package example.ledger;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * A reactive Boot application: accounts through R2DBC, an audit call through WebClient to a fenced WebFlux
 * endpoint, leases on Redis (Redisson). With {@code --self-check} it checks itself once started and exits 0,
 * or 1 with the reason.
 */
@SpringBootApplication
public class LedgerApplication {

    public static void main(String[] args) {
        boolean selfCheck = Arrays.asList(args).contains("--self-check");
        SpringApplication application = new SpringApplication(LedgerApplication.class);
        Map<String, Object> defaults = new HashMap<>();
        String jdbcUrl = System.getenv("GUARD_TEST_POSTGRES_URL");
        if (jdbcUrl != null) {
            // the build names its PostgreSQL by a JDBC URL; R2DBC's is the same place
            defaults.put("spring.r2dbc.url", jdbcUrl.replaceFirst("^jdbc:", "r2dbc:"));
        }
        if (selfCheck) {
            // the audit endpoint is this application's own, on a port free on this machine
            defaults.put("server.port", freePort());
        }
        application.setDefaultProperties(defaults);
        ConfigurableApplicationContext context;
        try {
            context = application.run(args);
        } catch (RuntimeException e) {
            System.err.println("SELF-CHECK FAILED: the application did not start: " + e);
            System.exit(1);
            return;
        }
        if (selfCheck) {
            int status = SelfCheck.run(() -> context.getBean(LedgerChecks.class).run());
            System.exit(SpringApplication.exit(context, () -> status));
        }
    }

    /**
     * A small JDBC pool beside R2DBC (Boot makes none when R2DBC is configured), for the migrations at start-up:
     * the application's, then the guard's.
     */
    @Bean
    DataSource dataSource(@Value("${spring.datasource.url}") String url,
                          @Value("${spring.datasource.username}") String username,
                          @Value("${spring.datasource.password}") String password) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        pool.setUsername(username);
        pool.setPassword(password);
        pool.setSchema("consumer_reactive");
        pool.setMaximumPoolSize(2);
        return pool;
    }

    /** A fresh schema at every start: the guard's tables then come from its own migrations after the application's. */
    @Bean
    FlywayMigrationStrategy cleanFirst() {
        return flyway -> {
            flyway.clean();
            flyway.migrate();
        };
    }

    @Bean
    WebClient auditClient(WebClient.Builder builder, Environment environment) {
        return builder.baseUrl("http://127.0.0.1:" + environment.getRequiredProperty("server.port")).build();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port", e);
        }
    }
}
