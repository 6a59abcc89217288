package example.owners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.test.FencingTester;
import io.fenceguard.spring.boot.test.SupersededHolder;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The whole application as it starts, on its embedded H2 and its seeds, with the test dependency's in-memory leases:
 * a seeded owner's visit by a superseded holder is refused and leaves the newer holder's visit and token.
 */
@SpringBootTest
class OwnerServiceFencingTest {

    @Autowired
    OwnerService owners;

    @Autowired
    FencingTester fencing;

    @Autowired
    JdbcTemplate jdbc;

    @Test
    void aSupersededHolderCannotRecordAVisitOfASeededOwner() throws Exception {
        long before = jdbc.queryForObject("SELECT visits FROM owners WHERE id = 'betty'", Long.class);
        try (SupersededHolder stale = fencing.supersede("owner:betty", () -> owners.visit("betty"))) {
            assertThatThrownBy(() -> stale.run(() -> owners.visit("betty")))
                    .isInstanceOf(ConcurrencyFailureException.class);
            assertThat(jdbc.queryForObject("SELECT visits FROM owners WHERE id = 'betty'", Long.class))
                    .isEqualTo(before + 1);
            assertThat(jdbc.queryForObject("SELECT current_token FROM owners WHERE id = 'betty'", Long.class))
                    .isEqualTo(stale.newerFence().token().value());
        }
    }
}
