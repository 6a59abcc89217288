package example.branches;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.jdbc.StaleTokenException;
import java.util.ArrayList;
import java.util.List;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessException;

/**
 * A stale write refused through JPA: a DataAccessException caused by the database's refusal. Hibernate's
 * translation makes it a JpaSystemException for now; once fenceguard makes stale writes arrive as a
 * ConcurrencyFailureException on every path, this still holds.
 */
final class StaleWrites {

    private StaleWrites() {
    }

    static void refused(Throwable refusal) {
        assertThat(refusal).isInstanceOf(DataAccessException.class);
        List<Throwable> causes = new ArrayList<>();
        for (Throwable t = refusal; t != null && !causes.contains(t); t = t.getCause()) {
            causes.add(t);
        }
        assertThat(causes).as("the refusal and its causes")
                .anyMatch(t -> t instanceof StaleTokenException || t instanceof ConcurrencyFailureException);
    }
}
