package example.accounts;

import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.annotation.Fenced;
import org.springframework.stereotype.Repository;

/** Writes under a lease on the account, as users write them with MyBatis; each returns the token it wrote under. */
@Repository
public class AccountDao {

    private final AccountMapper mapper;

    public AccountDao(AccountMapper mapper) {
        this.mapper = mapper;
    }

    @Fenced("'account:' + #id")
    public long open(String id, long balance) {
        mapper.insert(id, balance);
        return LeaseContext.requireValid().token().value();
    }

    @Fenced("'account:' + #id")
    public long deposit(String id, long amount) {
        return add(id, amount) == 1 ? LeaseContext.requireValid().token().value() : -1;
    }

    /** The write itself, under whatever lease is in context (none: refused). */
    public int add(String id, long amount) {
        return mapper.add(id, amount);
    }

    public long balance(String id) {
        return mapper.balance(id);
    }

    public long storedToken(String id) {
        return mapper.storedToken(id);
    }
}
