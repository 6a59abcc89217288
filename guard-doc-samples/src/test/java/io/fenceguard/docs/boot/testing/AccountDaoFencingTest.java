package io.fenceguard.docs.boot.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.test.FencingTester;
import io.fenceguard.spring.boot.test.SupersededHolder;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.context.annotation.Import;
import org.springframework.dao.ConcurrencyFailureException;

// tag::testing-superseded-holder[]
@JdbcTest
@Import(AccountDao.class)
class AccountDaoFencingTest {

    @Autowired AccountDao accounts;
    @Autowired FencingTester fencing;

    @Test
    void aSupersededHolderCannotDeposit() throws Exception {
        // a holder took account:42 and paused; a newer one took over and opened the account
        try (SupersededHolder stale = fencing.supersede("account:42", () -> accounts.open("42", 100))) {
            // the paused holder wakes up and deposits: the row has seen the newer token
            assertThatThrownBy(() -> stale.run(() -> accounts.deposit("42", 5)))
                    .isInstanceOf(ConcurrencyFailureException.class);
        }
        assertThat(accounts.balance("42")).isEqualTo(100);
    }
}
// end::testing-superseded-holder[]
