package io.fenceguard.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The matrix's rows, without servers: every fault the nemesis knows has a row, and rows are picked as asked. */
class ProofMatrixTest {

    @Test
    void everyFaultKindHasARowAndARowWithTwoFaultsAtOnce() {
        Set<Nemesis.Kind> covered = ProofMatrix.rows().stream().flatMap(r -> r.faults().stream())
                .flatMap(Collection::stream).collect(Collectors.toCollection(() -> EnumSet.noneOf(Nemesis.Kind.class)));
        assertThat(covered).containsExactlyInAnyOrder(Nemesis.Kind.values());
        assertThat(ProofMatrix.rows()).anyMatch(r -> r.faults().stream().anyMatch(f -> f.size() == 2));
    }

    @Test
    void aSkippedRowSaysWhy() {
        assertThat(ProofMatrix.rows()).allMatch(r -> r.skipReason().map(reason -> !reason.isBlank()).orElse(true));
    }

    @Test
    void rowsAreSelectedByTheirOneBasedNumbers() {
        List<ProofMatrix.Row> all = ProofMatrix.rows();
        assertThat(ProofMatrix.select(all, "")).isEqualTo(all);
        assertThat(ProofMatrix.select(all, "5, 1")).containsExactly(all.get(4), all.get(0));
        assertThatThrownBy(() -> ProofMatrix.select(all, "99")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no row 99");
    }
}
