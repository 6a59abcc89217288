package io.fenceguard.docs.boot.testing;

import io.fenceguard.core.annotation.Fenced;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

@Repository
class AccountDao {

    private final JdbcTemplate jdbc;

    AccountDao(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Fenced("'account:' + #id")
    void open(String id, long balance) {
        jdbc.update("INSERT INTO accounts (id, balance) VALUES (?, ?)", id, balance);
    }

    @Fenced("'account:' + #id")
    void deposit(String id, long amount) {
        jdbc.update("UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, id);
    }

    long balance(String id) {
        return jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?", Long.class, id);
    }
}
