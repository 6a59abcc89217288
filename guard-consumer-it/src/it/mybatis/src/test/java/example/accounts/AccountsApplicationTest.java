package example.accounts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.spring.dao.FencingRefusedUsageException;
import io.fenceguard.spring.dao.StaleTokenFailureException;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;

/** The application, started by the test, on the build's PostgreSQL and Redis. */
@SpringBootTest
class AccountsApplicationTest {

    @Autowired
    AccountDao accounts;

    @Autowired
    AccountChecks checks;

    @Test
    void aStaleJooqWriteIsRefusedAsAConcurrencyFailure() {
        String id = "t-" + UUID.randomUUID();
        long opened = accounts.open(id, 100);
        long deposited = accounts.deposit(id, 5);
        assertThat(deposited).isGreaterThan(opened);
        assertThatThrownBy(() -> {
            try (LeaseContext.Scope scope = LeaseContext.bind(Lease.presented(
                    Fence.of("account:" + id, Long.toString(opened)), "test"))) {
                accounts.add(id, 1000);
            }
        }).isInstanceOf(StaleTokenFailureException.class).isInstanceOf(ConcurrencyFailureException.class)
                .hasMessageContaining("stale fencing token " + opened);
        assertThat(accounts.balance(id)).isEqualTo(105);
        assertThat(accounts.storedToken(id)).isEqualTo(deposited);
    }

    @Test
    void aJooqWriteWithoutALeaseIsAUsageError() {
        String id = "t-" + UUID.randomUUID();
        accounts.open(id, 100);
        assertThatThrownBy(() -> accounts.add(id, 1))
                .isInstanceOf(FencingRefusedUsageException.class).isInstanceOf(InvalidDataAccessApiUsageException.class)
                .hasMessageContaining("NO_LEASE");
        assertThat(accounts.balance(id)).isEqualTo(100);
    }

    @Test
    void theSelfCheckPasses() {
        checks.run();
    }
}
