package example.branches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.test.FencingTester;
import io.fenceguard.spring.boot.test.SupersededHolder;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The whole application on PostgreSQL, leases in memory: a superseded holder's deposit and bulk update are refused
 * and the newer holder's balance stays.
 */
@SpringBootTest
class BranchServiceFencingTest {

    @Autowired
    BranchService branches;

    @Autowired
    AccountRepository accounts;

    @Autowired
    FencingTester fencing;

    @Test
    void aSupersededHolderCannotWrite() throws Exception {
        String branch = "full-" + UUID.randomUUID();
        String id = branch + "-1";
        try (SupersededHolder stale = fencing.supersede("branch:" + branch, () -> {
            branches.open(branch, List.of(new Account(id, branch, "ann", 100)));
            branches.deposit(branch, id, 5);
        })) {
            assertThatThrownBy(() -> stale.run(() -> branches.deposit(branch, id, 7)))
                    .satisfies(StaleWrites::refused);
            assertThatThrownBy(() -> stale.run(() -> branches.payInterest(branch, 1)))
                    .satisfies(StaleWrites::refused);
        }
        assertThat(accounts.findById(id).orElseThrow().getBalance()).isEqualTo(105);
    }
}
