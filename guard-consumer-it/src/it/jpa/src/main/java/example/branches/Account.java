package example.branches;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** An account of a branch. Its token column is the guard's business and is not mapped. */
@Entity
@Table(name = "accounts")
public class Account {

    @Id
    private String id;
    private String branch;
    private String owner;
    private long balance;
    @Version
    private Long version;

    protected Account() {
    }

    public Account(String id, String branch, String owner, long balance) {
        this.id = id;
        this.branch = branch;
        this.owner = owner;
        this.balance = balance;
    }

    public String getId() {
        return id;
    }

    public String getBranch() {
        return branch;
    }

    public String getOwner() {
        return owner;
    }

    public void setOwner(String owner) {
        this.owner = owner;
    }

    public long getBalance() {
        return balance;
    }

    public void deposit(long amount) {
        balance += amount;
    }

    public Long getVersion() {
        return version;
    }
}
