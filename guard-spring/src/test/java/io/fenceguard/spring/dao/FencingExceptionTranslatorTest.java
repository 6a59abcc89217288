package io.fenceguard.spring.dao;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Fence;
import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.jdbc.StaleTokenException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/** Which exceptions the translator names, through which wrappings, and what it leaves to the one that was there. */
class FencingExceptionTranslatorTest {

    private static final Fence FENCE = Fence.of("account:1", "9");
    private static final SQLExceptionTranslator INTEGRITY = (task, sql, ex) -> new DataIntegrityViolationException(task);

    @Test
    void aStaleTokenDeepInAPathsWrappersIsAConcurrencyFailure() {
        StaleTokenException stale = new StaleTokenException(FENCE, "accounts", "UPDATE accounts SET b = ?", null);
        RuntimeException wrapped = new IllegalStateException("could not execute statement", new SQLException("outer", stale));
        DataAccessException translated = FencingExceptionTranslator.around(INTEGRITY).translateExceptionIfPossible(wrapped);
        assertThat(translated).isInstanceOf(StaleTokenFailureException.class).isInstanceOf(ConcurrencyFailureException.class)
                .hasCause(wrapped).hasMessageContaining("stale fencing token 9");
        assertThat(((StaleTokenFailureException) translated).fence()).contains(FENCE);
    }

    @Test
    void aLostLeaseIsAConcurrencyFailureAndEveryOtherRefusalAUsageError() {
        FencingRefusedException lost = new FencingRefusedException(Reason.LEASE_LOST, "lost", "UPDATE a", FENCE, null);
        FencingRefusedException noLease = new FencingRefusedException(Reason.NO_LEASE, "no lease", "UPDATE a", null);
        FencingExceptionTranslator translator = FencingExceptionTranslator.around(INTEGRITY);
        assertThat(translator.translate("task", "UPDATE a", lost)).isInstanceOf(LeaseLostFailureException.class)
                .isInstanceOf(ConcurrencyFailureException.class);
        DataAccessException refused = translator.translate("task", "UPDATE a", noLease);
        assertThat(refused).isInstanceOf(FencingRefusedUsageException.class)
                .isInstanceOf(InvalidDataAccessApiUsageException.class).hasMessageStartingWith("task; SQL [UPDATE a]; ");
        assertThat(((FencingRefusedUsageException) refused).reason()).contains(Reason.NO_LEASE);
    }

    @Test
    void theDatabasesOwnStatesCountWithoutTheGuardsTypes() {
        FencingExceptionTranslator translator = FencingExceptionTranslator.around(INTEGRITY);
        assertThat(translator.translate("t", null, new SQLException("stale", "40F01")))
                .isInstanceOfSatisfying(StaleTokenFailureException.class, e -> assertThat(e.fence()).isEmpty());
        assertThat(translator.translate("t", null, new SQLException("no token (trigger mode)", "0AF02")))
                .isInstanceOf(FencingRefusedUsageException.class);
    }

    @Test
    void everythingElseGoesToTheTranslatorThatWasThereOrStaysUntranslated() {
        SQLException other = new SQLException("duplicate key", "23505");
        assertThat(FencingExceptionTranslator.around(INTEGRITY).translate("t", null, other))
                .isExactlyInstanceOf(DataIntegrityViolationException.class);
        assertThat(FencingExceptionTranslator.around(null).translate("t", null, other)).isNull();
        assertThat(FencingExceptionTranslator.around(null).translateExceptionIfPossible(new IllegalStateException("x")))
                .isNull();
    }

    @Test
    void installingTwiceYieldsOneAndACyclicChainEnds() {
        FencingExceptionTranslator once = FencingExceptionTranslator.around(INTEGRITY);
        assertThat(FencingExceptionTranslator.around(once)).isSameAs(once);
        assertThat(once.delegate()).isSameAs(INTEGRITY);
        SQLException first = new SQLException("a");
        SQLException second = new SQLException("b", first);
        first.initCause(second);
        assertThat(FencingRefusals.translate(null, null, first)).isNull();
    }
}
