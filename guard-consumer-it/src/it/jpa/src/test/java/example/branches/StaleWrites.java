package example.branches;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.spring.dao.StaleTokenFailureException;
import org.springframework.dao.ConcurrencyFailureException;

/**
 * What a refused stale write through JPA looks like to the application: Spring's concurrency failure (fenceguard's
 * {@code StaleTokenFailureException}), so that a retry on
 * {@code ConcurrencyFailureException} fires.
 */
final class StaleWrites {

    private StaleWrites() {
    }

    static void refused(Throwable refusal) {
        assertThat(refusal).isInstanceOf(ConcurrencyFailureException.class)
                .isInstanceOf(StaleTokenFailureException.class);
    }
}
