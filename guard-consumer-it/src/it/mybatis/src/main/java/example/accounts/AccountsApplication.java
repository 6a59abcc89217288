package example.accounts;

import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationStrategy;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * An ordinary Boot application: accounts in PostgreSQL through a MyBatis mapper, leases on Spring Data Redis. With
 * {@code --self-check} it checks itself once started and exits 0, or 1 with the reason.
 */
@SpringBootApplication
public class AccountsApplication {

    public static void main(String[] args) {
        boolean selfCheck = Arrays.asList(args).contains("--self-check");
        ConfigurableApplicationContext context;
        try {
            context = SpringApplication.run(AccountsApplication.class, args);
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
}
