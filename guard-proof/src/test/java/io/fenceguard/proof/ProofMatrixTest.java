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
    void theEtcdFaultsRunOnEtcdAndTheRedisFaultsOnRedis() {
        for (ProofMatrix.Row row : ProofMatrix.rows()) {
            boolean etcdFault = row.faults().stream().flatMap(Collection::stream)
                    .anyMatch(k -> k == Nemesis.Kind.ETCD_LEADER_KILL || k == Nemesis.Kind.ETCD_PARTITION);
            if (etcdFault) {
                assertThat(row.store()).as(row.name()).isEqualTo(Topology.ETCD);
            }
            if (row.store().equals(Topology.ETCD)) {
                // skipped exactly when there is no etcd binary, and then saying so
                assertThat(row.skipReason()).as(row.name()).isEqualTo(EtcdServers.unavailableReason());
            }
        }
        assertThat(ProofMatrix.rows()).filteredOn(r -> r.store().equals(Topology.ETCD)).extracting(ProofMatrix.Row::faults)
                .anyMatch(f -> f.contains(List.of(Nemesis.Kind.ETCD_LEADER_KILL)))
                .anyMatch(f -> f.contains(List.of(Nemesis.Kind.ETCD_PARTITION)))
                .anyMatch(f -> f.contains(List.of(Nemesis.Kind.PAUSE_THREAD)));
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
