package io.fenceguard.example.ledger;

import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.example.chaos.Chaos;
import io.fenceguard.jdbc.HighWaterMarks;
import io.fenceguard.jdbc.Unfenced;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The ledger's accounts. Deposits are read-modify-write under a lease on {@code account:<id>}: each of
 * the two transactions first claims the resource's high-water row, so a holder whose lease was taken over
 * cannot write a balance computed from what it read before the newer holder's read.
 */
@Repository
public class LedgerDao {

    private final JdbcClient jdbc;
    private final DataSource dataSource;
    private final TransactionTemplate transactions;
    private final AuditOutbox outbox;
    private final Chaos chaos;
    private final SQLExceptionTranslator translator;
    /** {@code fenceguard.jdbc.enabled=false} runs the ledger unfenced: only the control runs of the proof harness do. */
    private final boolean fenced;

    public LedgerDao(DataSource dataSource, TransactionTemplate transactions, AuditOutbox outbox, Chaos chaos,
            @Value("${fenceguard.jdbc.enabled:true}") boolean fenced) {
        this.jdbc = JdbcClient.create(dataSource);
        this.dataSource = dataSource;
        this.transactions = transactions;
        this.outbox = outbox;
        this.chaos = chaos;
        this.translator = new SQLErrorCodeSQLExceptionTranslator(dataSource);
        this.fenced = fenced;
    }

    public record Account(String id, long balance, Long currentToken) {
    }

    public record Deposit(long balance, long token, boolean audited) {
    }

    /** Creates or resets an account: an admin write, through the named unfenced escape. */
    public boolean reset(String id, long balance) {
        boolean[] created = new boolean[1];
        Unfenced.run(() -> transactions.executeWithoutResult(status -> {
            int updated = jdbc.sql("UPDATE accounts SET balance = ? WHERE id = ?").params(balance, id).update();
            if (updated == 0) {
                jdbc.sql("INSERT INTO accounts (id, balance) VALUES (?, ?)").params(id, balance).update();
                jdbc.sql("INSERT INTO audit_heads (account_id) VALUES (?)").params(id).update();
                created[0] = true;
            }
        }));
        return created[0];
    }

    public Optional<Account> find(String id) {
        return jdbc.sql("SELECT id, balance, current_token FROM accounts WHERE id = ?").param(id)
                .query((rs, n) -> new Account(rs.getString(1), rs.getLong(2), (Long) rs.getObject(3)))
                .optional();
    }

    /**
     * Adds {@code amount}: reads the balance, (optionally) pauses, and writes the new absolute balance
     * together with its audit call in the outbox (one transaction), all under the lease. After the commit
     * the account's outbox is sent downstream, still under the lease; what is not sent now (the audit
     * service down, this process killed) is sent by {@link AuditRelay} later. So the balance and the
     * audit trail never disagree for good: no audit entry without its deposit, none twice.
     */
    @Fenced("'account:' + #id")
    public Deposit deposit(String id, long amount, int pauseMs) {
        Lease lease = LeaseContext.requireValid();
        long balance = transactions.execute(status -> {
            claimHighWaterMark();
            return jdbc.sql("SELECT balance FROM accounts WHERE id = ?").param(id).query(Long.class).optional()
                    .orElseThrow(() -> new AccountNotFoundException(id));
        });
        chaos.pause(lease, pauseMs);
        long newBalance = Math.addExact(balance, amount);
        transactions.executeWithoutResult(status -> {
            claimHighWaterMark();
            jdbc.sql("UPDATE accounts SET balance = ? WHERE id = ?").params(newBalance, id).update();
            outbox.add(id, amount, newBalance);
        });
        boolean audited = outbox.drain(id);
        return new Deposit(newBalance, lease.token().value(), audited);
    }

    /** Sends the account's pending audit calls under a lease of its own (the relay after a restart). */
    @Fenced("'account:' + #id")
    public boolean relay(String id) {
        return outbox.drain(id);
    }

    private void claimHighWaterMark() {
        if (!fenced) {
            return;
        }
        try {
            HighWaterMarks.claim(DataSourceUtils.getConnection(dataSource));
        } catch (SQLException e) {
            DataAccessException translated = translator.translate("claim the high-water mark", null, e);
            throw translated != null ? translated : new UncategorizedSQLException("claim the high-water mark", null, e);
        }
    }
}
