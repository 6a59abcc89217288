package example.branches;

import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * An ordinary Boot application on Spring Data JPA: accounts as entities with {@code @Version}, written under
 * leases on Redis (Redisson). With {@code --self-check} it checks itself once started and exits 0, or 1 with
 * the reason.
 */
@SpringBootApplication
public class BranchesApplication {

    public static void main(String[] args) {
        boolean selfCheck = Arrays.asList(args).contains("--self-check");
        ConfigurableApplicationContext context;
        try {
            context = SpringApplication.run(BranchesApplication.class, args);
        } catch (RuntimeException e) {
            System.err.println("SELF-CHECK FAILED: the application did not start: " + e);
            System.exit(1);
            return;
        }
        if (selfCheck) {
            int status = SelfCheck.run(() -> context.getBean(BranchChecks.class).run());
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
}
