package example.branches;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.test.FencingTester;
import io.fenceguard.spring.boot.test.SupersededHolder;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.context.annotation.Import;

/**
 * A slice test on H2: fenceguard keeps the accounts table fenced in {@code @DataJpaTest}, so Hibernate's flush of a
 * superseded holder's change is refused here as in production. The migrations run in H2's default schema.
 */
@DataJpaTest(properties = "spring.flyway.schemas=PUBLIC")
@Import(BranchService.class)
class BranchServiceJpaTest {

    @Autowired
    BranchService branches;

    @Autowired
    FencingTester fencing;

    @Test
    void aSupersededHolderCannotDeposit() throws Exception {
        String branch = "slice-" + UUID.randomUUID();
        String id = branch + "-1";
        // the newer holder opens the account: the test's transaction keeps its lease to the end, as in production
        try (SupersededHolder stale = fencing.supersede("branch:" + branch,
                () -> branches.open(branch, List.of(new Account(id, branch, "ann", 100))))) {
            assertThatThrownBy(() -> stale.run(() -> branches.deposit(branch, id, 5)))
                    .satisfies(StaleWrites::refused);
        }
    }
}
