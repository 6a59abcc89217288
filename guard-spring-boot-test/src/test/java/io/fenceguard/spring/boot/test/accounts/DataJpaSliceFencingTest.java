package io.fenceguard.spring.boot.test.accounts;

import io.fenceguard.spring.boot.test.FencingTester;
import io.fenceguard.spring.boot.test.SupersededHolder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.context.annotation.Import;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.jdbc.core.JdbcTemplate;

/** A {@code @DataJpaTest} (H2) keeps fencing on: Hibernate's flush of a fenced entity is refused as in production. */
@DataJpaTest
@Import({AccountService.class, JdbcTemplateConfiguration.class})
class DataJpaSliceFencingTest {

    @Autowired
    AccountService service;

    @Autowired
    AccountRepository repository;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    FencingTester fencing;

    @Test
    void aFlushWithoutALeaseIsRefused() {
        assertThatThrownBy(() -> repository.saveAndFlush(new Account("j0", 1)))
                .isInstanceOf(InvalidDataAccessApiUsageException.class)
                .hasMessageContaining("accounts");
    }

    @Test
    void aSupersededHolderIsRefused() throws Exception {
        // the test's transaction keeps every lease until it ends, as in production: the newer holder opens the account
        try (SupersededHolder stale = fencing.supersede("account:j1", () -> {
            service.open("j1", 10);
            service.deposit("j1", 5);
        })) {
            assertThatThrownBy(() -> stale.run(() -> service.deposit("j1", 7)))
                    .satisfies(StaleWrites::refused);
            assertThat(jdbc.queryForObject("SELECT balance FROM accounts WHERE id = 'j1'", Long.class)).isEqualTo(15);
            assertThat(jdbc.queryForObject("SELECT current_token FROM accounts WHERE id = 'j1'", Long.class))
                    .isEqualTo(stale.newerFence().token().value());
        }
    }
}
