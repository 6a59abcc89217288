package io.fenceguard.example.reactive;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The ledger's audit trail as a reactive service: the ledger (example-service) sends its fenced calls
 * here, the WebFlux fencing filter admits them and binds the caller's fence in the Reactor Context, and
 * the R2DBC writes carry that token to PostgreSQL, which refuses an older one.
 */
@SpringBootApplication
public class ReactiveAuditApplication {

    public static void main(String[] args) {
        SpringApplication.run(ReactiveAuditApplication.class, args);
    }
}
