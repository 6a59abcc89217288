package io.fenceguard.docs.readme;

import io.fenceguard.core.annotation.Fenced;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.web.client.RestClient;

// tag::readme-fenced-dao[]
@Repository
class AccountDao {
    private final JdbcTemplate jdbc;
    private final RestClient audit;

    AccountDao(JdbcTemplate jdbc, RestClient.Builder http) {
        this.jdbc = jdbc;
        this.audit = http.baseUrl("https://audit.internal").build();   // a configured destination
    }

    @Fenced("'account:' + #id")                        // lease on account:<id>, taken before any transaction
    void deposit(String id, long amount) {
        jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, id);  // stamped, fenced
        audit.post().uri("/audit/{id}", id).retrieve().toBodilessEntity();                  // Fencing-Token header
    }
}
// end::readme-fenced-dao[]
