package io.fenceguard.spring.boot.test.accounts;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An account row; its current_token column is the fence's, not mapped. */
@Entity
@Table(name = "accounts")
public class Account {

    @Id
    private String id;

    private long balance;

    protected Account() {
    }

    public Account(String id, long balance) {
        this.id = id;
        this.balance = balance;
    }

    public String getId() {
        return id;
    }

    public long getBalance() {
        return balance;
    }

    public void setBalance(long balance) {
        this.balance = balance;
    }
}
