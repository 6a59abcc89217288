package io.fenceguard.spring.boot.test.accounts;

import io.fenceguard.core.annotation.Fenced;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Accounts through Spring Data JPA, each change under a lease on its account and flushed before it returns. */
@Service
public class AccountService {

    private final AccountRepository accounts;

    public AccountService(AccountRepository accounts) {
        this.accounts = accounts;
    }

    @Fenced("'account:' + #id")
    @Transactional
    public void open(String id, long balance) {
        accounts.saveAndFlush(new Account(id, balance));
    }

    @Fenced("'account:' + #id")
    @Transactional
    public void deposit(String id, long amount) {
        Account account = accounts.findById(id).orElseThrow();
        account.setBalance(account.getBalance() + amount);
        accounts.saveAndFlush(account);
    }
}
