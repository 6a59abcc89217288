package io.fenceguard.docs.concepts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.docs.SampleDatabase;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** A programmatic lease around a transaction, on PostgreSQL: the commit happens under the lease, fenced. */
class LeaseAndTransactionSampleTest {

    static Integer debit(LeaseManager guard, TransactionTemplate transactionTemplate, JdbcTemplate jdbc) {
        // tag::lease-around-transaction[]
        Integer updated = guard.callWithLease("account:42", Duration.ofSeconds(5), lease ->
                transactionTemplate.execute(status -> jdbc.update(
                        "UPDATE accounts SET balance = balance - ? WHERE id = ?", 100, "42")));   // commit under the lease
        // end::lease-around-transaction[]
        return updated;
    }

    @Test
    void theTransactionCommitsUnderTheLeaseWithItsToken() throws Exception {
        try (SampleDatabase db = SampleDatabase.create();
             InMemoryLeaseProvider provider = InMemoryLeaseProvider.create();
             LeaseManager guard = LeaseManager.of(provider)) {
            DataSource fenced = FencedDataSource.wrap(db.pool(), FencingConfig.builder().fence("accounts").build());
            TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(fenced));
            assertThat(debit(guard, transactions, new JdbcTemplate(fenced))).isEqualTo(1);
            assertThat(db.queryLong("SELECT balance FROM accounts WHERE id = '42'")).isZero();
            assertThat(db.queryLong("SELECT current_token FROM accounts WHERE id = '42'")).isPositive();
        }
    }
}
