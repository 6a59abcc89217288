package example.owners;

import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An ordinary Boot application on Spring Data JPA and Boot's embedded H2, fenced as the README says, leases on
 * Redis (Spring Data Redis). With {@code --self-check} it checks itself once started and exits 0, or 1 with the
 * reason (also when it did not start).
 */
@SpringBootApplication
public class OwnersApplication {

    public static void main(String[] args) {
        boolean selfCheck = Arrays.asList(args).contains("--self-check");
        ConfigurableApplicationContext context;
        try {
            context = SpringApplication.run(OwnersApplication.class, args);
        } catch (RuntimeException e) {
            System.err.println("SELF-CHECK FAILED: the application did not start: " + e);
            System.exit(1);
            return;
        }
        if (selfCheck) {
            int status = SelfCheck.run(() -> context.getBean(OwnerChecks.class).run());
            System.exit(SpringApplication.exit(context, () -> status));
        }
    }
}
