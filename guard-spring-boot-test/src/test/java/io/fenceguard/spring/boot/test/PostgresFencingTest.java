package io.fenceguard.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.test.accounts.AccountDao;
import io.fenceguard.spring.boot.test.accounts.AccountService;
import io.fenceguard.spring.boot.test.accounts.AccountsApplication;
import io.fenceguard.spring.boot.test.accounts.StaleWrites;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.ScratchSpace;
import io.fenceguard.test.support.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The whole application on real PostgreSQL (a schema of this run's own), leases in memory: superseded holders refused. */
@SpringBootTest(classes = AccountsApplication.class)
class PostgresFencingTest {

    private static final JdbcEndpoint SERVER = TestServers.postgres();
    private static final ScratchSpace SCHEMA = ScratchSpace.create(SERVER, "fg_boot_test");

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        properties.add("spring.datasource.url", SERVER::url);
        properties.add("spring.datasource.username", SERVER::user);
        properties.add("spring.datasource.password", SERVER::password);
        properties.add("spring.datasource.hikari.schema", SCHEMA::schema);
    }

    @AfterAll
    static void dropSchema() {
        SCHEMA.close();
    }

    @Autowired
    AccountDao accounts;

    @Autowired
    AccountService service;

    @Autowired
    FencingTester fencing;

    @Test
    void aSupersededJdbcTemplateWriteIsRefused() throws Exception {
        accounts.open("p1", 10);

        try (SupersededHolder stale = fencing.supersede("account:p1", () -> accounts.deposit("p1", 5))) {
            assertThatThrownBy(() -> stale.run(() -> accounts.deposit("p1", 7)))
                    .isInstanceOf(PessimisticLockingFailureException.class);
        }
        assertThat(accounts.balance("p1")).isEqualTo(15);
    }

    @Test
    void aSupersededJpaFlushIsRefused() throws Exception {
        service.open("p2", 10);

        try (SupersededHolder stale = fencing.supersede("account:p2", () -> service.deposit("p2", 5))) {
            assertThatThrownBy(() -> stale.run(() -> service.deposit("p2", 7)))
                    .satisfies(StaleWrites::refused);
            assertThat(accounts.storedToken("p2")).isEqualTo(stale.newerFence().token().value());
        }
        assertThat(accounts.balance("p2")).isEqualTo(15);
    }

    @Test
    void supersedingUnderALeaseIsRefusedAndTakesNothing() throws Exception {
        accounts.open("p3", 10);

        try (SupersededHolder stale = fencing.supersede("account:p3", () -> accounts.deposit("p3", 1))) {
            assertThatThrownBy(() -> stale.run(() -> fencing.supersede("account:p4", () -> { })))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("under a lease");
        }
    }
}
