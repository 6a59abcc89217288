package example.accounts;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;

import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.annotation.Fenced;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.springframework.stereotype.Repository;

/** Writes under a lease on the account, as users write them with jOOQ; each returns the token it wrote under. */
@Repository
public class AccountDao {

    static final Table<Record> ACCOUNTS = table("accounts");
    static final Field<String> ID = field("id", String.class);
    static final Field<Long> BALANCE = field("balance", Long.class);
    static final Field<Long> CURRENT_TOKEN = field("current_token", Long.class);

    private final DSLContext dsl;

    public AccountDao(DSLContext dsl) {
        this.dsl = dsl;
    }

    @Fenced("'account:' + #id")
    public long open(String id, long balance) {
        dsl.insertInto(ACCOUNTS, ID, BALANCE).values(id, balance).execute();
        return LeaseContext.requireValid().token().value();
    }

    @Fenced("'account:' + #id")
    public long deposit(String id, long amount) {
        return add(id, amount) == 1 ? LeaseContext.requireValid().token().value() : -1;
    }

    /** The write itself, under whatever lease is in context (none: refused). */
    public int add(String id, long amount) {
        return dsl.update(ACCOUNTS).set(BALANCE, BALANCE.plus(amount)).where(ID.eq(id)).execute();
    }

    public long balance(String id) {
        return dsl.select(BALANCE).from(ACCOUNTS).where(ID.eq(id)).fetchSingle().value1();
    }

    public long storedToken(String id) {
        return dsl.select(CURRENT_TOKEN).from(ACCOUNTS).where(ID.eq(id)).fetchSingle().value1();
    }
}
