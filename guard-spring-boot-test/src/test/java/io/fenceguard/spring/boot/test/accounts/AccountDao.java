package io.fenceguard.spring.boot.test.accounts;

import io.fenceguard.core.annotation.Fenced;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** Accounts through JdbcTemplate, each write under a lease on its account. */
@Repository
public class AccountDao {

    private final JdbcTemplate jdbc;

    public AccountDao(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Fenced("'account:' + #id")
    public void open(String id, long balance) {
        jdbc.update("INSERT INTO accounts (id, balance) VALUES (?, ?)", id, balance);
    }

    @Fenced("'account:' + #id")
    public void deposit(String id, long amount) {
        jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, id);
    }

    /** The same write without a lease: what a fenced table refuses. */
    public void depositUnleased(String id, long amount) {
        jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, id);
    }

    public long balance(String id) {
        return jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?", Long.class, id);
    }

    public long storedToken(String id) {
        return jdbc.queryForObject("SELECT current_token FROM accounts WHERE id = ?", Long.class, id);
    }
}
