package example.accounts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.FenceHeader;
import io.fenceguard.spring.boot.test.FencingTester;
import io.fenceguard.spring.boot.test.SupersededHolder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

/**
 * The whole application on PostgreSQL, with its audit endpoint on a port of its own; leases in memory (no Redis
 * needed). A superseded holder's deposit is refused by the database and never reaches the audit endpoint, and a
 * call it makes carries its own, older, token in the Fencing-Token header.
 */
@SpringBootTest(webEnvironment = WebEnvironment.DEFINED_PORT)
class AccountDaoFencingTest {

    private static final int PORT = freePort();

    @DynamicPropertySource
    static void port(DynamicPropertyRegistry properties) {
        properties.add("server.port", () -> PORT);
    }

    @Autowired
    AccountDao accounts;

    @Autowired
    AuditController audit;

    @Autowired
    RestClient auditClient;

    @Autowired
    FencingTester fencing;

    @Test
    void aSupersededHolderCannotDeposit() throws Exception {
        String id = "full-" + UUID.randomUUID();
        try (SupersededHolder stale = fencing.supersede("account:" + id, () -> {
            accounts.open(id, 100);
            accounts.deposit(id, 5);
        })) {
            assertThatThrownBy(() -> stale.run(() -> accounts.deposit(id, 7)))
                    .isInstanceOf(ConcurrencyFailureException.class)
                    .hasMessageContaining("accounts");
            assertThat(accounts.balance(id)).isEqualTo(105);
            assertThat(accounts.storedToken(id)).isEqualTo(stale.newerFence().token().value());
            assertThat(audit.lastToken(id)).isEqualTo(FenceHeader.of(stale.newerFence()).value());
        }
    }

    @Test
    void aSupersededHoldersCallCarriesItsOwnToken() throws Exception {
        String id = "call-" + UUID.randomUUID();
        try (SupersededHolder stale = fencing.supersede("account:" + id, () -> accounts.open(id, 100))) {
            stale.run(() -> auditClient.post().uri("/audit/{id}", id).body("late").retrieve().toBodilessEntity());
            assertThat(audit.lastToken(id)).isEqualTo(FenceHeader.of(stale.fence()).value());
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
