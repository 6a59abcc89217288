package io.fenceguard.spring.boot.test.accounts;

import io.fenceguard.spring.boot.test.FencingTester;
import io.fenceguard.spring.boot.test.SupersededHolder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.context.annotation.Import;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;

/** A {@code @JdbcTest} (H2, as users' slice tests run) keeps fencing on: the fenced table refuses what production refuses. */
@JdbcTest
@Import(AccountDao.class)
class JdbcSliceFencingTest {

    @Autowired
    AccountDao accounts;

    @Autowired
    FencingTester fencing;

    @Test
    void aWriteWithoutALeaseIsRefused() {
        accounts.open("a1", 10);

        assertThatThrownBy(() -> accounts.depositUnleased("a1", 5))
                .isInstanceOf(DataAccessException.class)
                .hasMessageContaining("accounts");
        assertThat(accounts.balance("a1")).isEqualTo(10);
    }

    @Test
    void aSupersededHolderIsRefusedAndTheNewerWriteStays() throws Exception {
        // the test's transaction keeps every lease until it ends, as in production: the newer holder opens the account
        try (SupersededHolder stale = fencing.supersede("account:a2", () -> {
            accounts.open("a2", 10);
            accounts.deposit("a2", 5);
        })) {
            assertThatThrownBy(() -> stale.run(() -> accounts.deposit("a2", 7)))
                    .isInstanceOf(PessimisticLockingFailureException.class);
            assertThat(accounts.balance("a2")).isEqualTo(15);
            assertThat(accounts.storedToken("a2")).isEqualTo(stale.newerFence().token().value())
                    .isGreaterThan(stale.fence().token().value());
        }
    }
}
