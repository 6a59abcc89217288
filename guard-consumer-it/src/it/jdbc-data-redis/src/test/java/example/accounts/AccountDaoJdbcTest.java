package example.accounts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.test.FencingTester;
import io.fenceguard.spring.boot.test.SupersededHolder;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.web.client.RestClient;

/**
 * A slice test on H2: fenceguard keeps the accounts table fenced in {@code @JdbcTest}, so the DAO's write as a
 * superseded holder is refused here as in production. The application's own beans on its main class need a
 * RestClient.Builder and a server port, which a JDBC slice has not.
 */
@JdbcTest(properties = {"server.port=0", "spring.flyway.schemas=PUBLIC"})
@Import({AccountDao.class, AccountDaoJdbcTest.HttpClient.class})
class AccountDaoJdbcTest {

    @Autowired
    AccountDao accounts;

    @Autowired
    FencingTester fencing;

    @Test
    void aSupersededHolderCannotDeposit() throws Exception {
        String id = "slice-" + UUID.randomUUID();
        // the newer holder opens the account: the test's transaction keeps its lease to the end, as in production
        try (SupersededHolder stale = fencing.supersede("account:" + id, () -> accounts.open(id, 100))) {
            assertThatThrownBy(() -> stale.run(() -> accounts.deposit(id, 5)))
                    .isInstanceOf(ConcurrencyFailureException.class)
                    .hasMessageContaining("accounts");
        }
        assertThat(accounts.balance(id)).isEqualTo(100);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class HttpClient {

        @Bean
        RestClient.Builder restClientBuilder() {
            return RestClient.builder();
        }
    }
}
