package example.accounts;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Arrays;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;

/**
 * An ordinary Boot application built ahead of time (process-aot) and started from the generated code: accounts in
 * PostgreSQL through JdbcTemplate, a fenced audit endpoint called through RestClient, leases on Spring Data Redis.
 * With {@code --self-check} it checks itself once started and exits 0, or 1 with the reason.
 */
@SpringBootApplication
public class AccountsApplication {

    public static void main(String[] args) {
        boolean selfCheck = Arrays.asList(args).contains("--self-check");
        SpringApplication application = new SpringApplication(AccountsApplication.class);
        if (selfCheck) {
            // the audit endpoint is this application's own, on a port free on this machine
            application.setDefaultProperties(Map.of("server.port", freePort()));
        }
        ConfigurableApplicationContext context;
        try {
            context = application.run(args);
        } catch (SpringApplication.AbandonedRunException e) {
            throw e;  // process-aot ends the run this way once it has the context's definitions: not a failure
        } catch (RuntimeException e) {
            System.err.println("SELF-CHECK FAILED: the application did not start: " + e);
            System.exit(1);
            return;
        }
        if (selfCheck) {
            int status = SelfCheck.run(() -> context.getBean(AccountChecks.class).run());
            System.exit(SpringApplication.exit(context, () -> status));
        }
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
    RestClient auditClient(RestClient.Builder builder, Environment environment) {
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
