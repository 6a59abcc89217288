package io.fenceguard.docs.concepts;

import io.fenceguard.core.annotation.Fenced;
import org.springframework.jdbc.core.JdbcTemplate;

/** {@code @Fenced} on a Spring bean's method (advised by the Boot auto-configuration). */
class AccountService {

    private final JdbcTemplate jdbc;

    AccountService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    // tag::fenced-method[]
    @Fenced("'account:' + #id")                       // optional: waitFor = "2s"
    public void deposit(String id, long amount) {     // runs with the lease bound to LeaseContext
        jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, id);
    }
    // end::fenced-method[]
}
