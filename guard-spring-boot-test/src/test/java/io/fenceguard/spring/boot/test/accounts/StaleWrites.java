package io.fenceguard.spring.boot.test.accounts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.jdbc.StaleTokenException;
import java.util.ArrayList;
import java.util.List;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessException;

/**
 * What a refused stale write through JPA looks like: a DataAccessException caused by the database's refusal.
 * Hibernate's translation makes it a JpaSystemException today; once stale writes arrive as a
 * ConcurrencyFailureException on every path, the first check narrows to that type and this still holds.
 */
public final class StaleWrites {

    private StaleWrites() {
    }

    public static void refused(Throwable refusal) {
        assertThat(refusal).isInstanceOf(DataAccessException.class);
        List<Throwable> causes = new ArrayList<>();
        for (Throwable t = refusal; t != null && !causes.contains(t); t = t.getCause()) {
            causes.add(t);
        }
        assertThat(causes).as("the refusal and its causes")
                .anyMatch(t -> t instanceof StaleTokenException || t instanceof ConcurrencyFailureException);
    }
}
