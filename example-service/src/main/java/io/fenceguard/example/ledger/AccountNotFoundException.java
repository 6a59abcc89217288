package io.fenceguard.example.ledger;

/** The account does not exist. */
public class AccountNotFoundException extends RuntimeException {

    private final String accountId;

    public AccountNotFoundException(String accountId) {
        super("no account '" + accountId + "'");
        this.accountId = accountId;
    }

    public String accountId() {
        return accountId;
    }
}
