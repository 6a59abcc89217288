package example.owners;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.test.FencingTester;
import io.fenceguard.spring.boot.test.SupersededHolder;
import io.fenceguard.spring.dao.StaleTokenFailureException;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.context.annotation.Import;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * A slice test on the application's own embedded H2: the owners table stays fenced in {@code @DataJpaTest}, so a
 * superseded holder's flush is refused here as in production, and a write without a lease too.
 */
@DataJpaTest
@Import(OwnerService.class)
class OwnerServiceJpaTest {

    @Autowired
    OwnerService owners;

    @Autowired
    OwnerRepository repository;

    @Autowired
    FencingTester fencing;

    @Test
    void aSupersededHolderCannotRecordAVisit() throws Exception {
        String id = "slice-" + UUID.randomUUID();
        try (SupersededHolder stale = fencing.supersede("owner:" + id, () -> owners.register(new Owner(id, "Ann")))) {
            assertThatThrownBy(() -> stale.run(() -> owners.visit(id)))
                    .isInstanceOf(ConcurrencyFailureException.class)
                    .isInstanceOf(StaleTokenFailureException.class);
        }
    }

    @Test
    void aWriteWithoutALeaseIsRefused() {
        assertThatThrownBy(() -> repository.saveAndFlush(new Owner("no-lease-" + UUID.randomUUID(), "Bob")))
                .isInstanceOf(InvalidDataAccessApiUsageException.class)
                .hasMessageContaining("owners");
    }
}
