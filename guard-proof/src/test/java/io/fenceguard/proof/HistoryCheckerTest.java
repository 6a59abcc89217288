package io.fenceguard.proof;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker on hand-made histories: a retried write is one operation, a write overwritten is a lost one. */
class HistoryCheckerTest {

    private static final String R = "register:1";

    @Test
    void aWriteAppliedTwiceByItsRetryIsNotALostWrite() {
        // op a reads 0, writes 1; its retry (the answer was lost) is applied again: same read, same token
        List<ProofSchema.LogEntry> log = List.of(entry(1, 5, "a", 0, 1), entry(2, 5, "a", 0, 1), entry(3, 6, "b", 1, 2));
        HistoryChecker.Findings findings = HistoryChecker.check(List.of(op("a", 5), op("b", 6)), state(log, 2));
        assertThat(findings.lostAcknowledged()).isZero();
        assertThat(findings.staleAdmitted()).isZero();
        assertThat(findings.anomalyCount()).isZero();
    }

    @Test
    void aWriteThatALaterOperationDidNotBuildOnIsLostEvenBetweenRetries() {
        // a wrote 1; b read 0 (before a) and wrote after it: a's acknowledged write is lost
        List<ProofSchema.LogEntry> log = List.of(entry(1, 5, "a", 0, 1), entry(2, 5, "a", 0, 1), entry(3, 6, "b", 0, 1));
        HistoryChecker.Findings findings = HistoryChecker.check(List.of(op("a", 5), op("b", 6)), state(log, 1));
        assertThat(findings.lostAcknowledged()).isEqualTo(2);   // both of a's entries were overwritten
    }

    @Test
    void aLateWriteWithAnOlderTokenIsStaleAdmitted() {
        // a's request arrived after b's write (the network held it): older token admitted after a newer one
        List<ProofSchema.LogEntry> log = List.of(entry(1, 6, "b", 0, 1), entry(2, 5, "a", 0, 1));
        HistoryChecker.Findings findings = HistoryChecker.check(List.of(op("a", 5), op("b", 6)), state(log, 1));
        assertThat(findings.staleAdmitted()).isEqualTo(1);
        assertThat(findings.lostAcknowledged()).isEqualTo(1);
    }

    @Test
    void laterMinimumReadsSkipTheEntryOwnOperation() {
        List<ProofSchema.LogEntry> log = List.of(entry(1, 1, "a", 3, 4), entry(2, 1, "a", 3, 4), entry(3, 2, "b", 7, 8),
                entry(4, 3, "c", 2, 3), entry(5, 3, "c", 2, 3));
        long[] expected = new long[log.size()];
        for (int i = 0; i < log.size(); i++) {
            long min = Long.MAX_VALUE;
            for (int j = i + 1; j < log.size(); j++) {
                if (!log.get(j).opId().equals(log.get(i).opId())) {
                    min = Math.min(min, log.get(j).read());
                }
            }
            expected[i] = min;
        }
        assertThat(HistoryChecker.laterMinReads(log)).containsExactly(expected);
        assertThat(expected).containsExactly(2, 2, 2, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    private static ProofSchema.LogEntry entry(long seq, long token, String op, long read, long written) {
        return new ProofSchema.LogEntry(R, seq, token, op, read, written);
    }

    private static Op op(String id, long token) {
        return new Op(id, "c-" + id, "http", R, "single", 0, 1, token, Op.OK, null, null);
    }

    private static ProofSchema.State state(List<ProofSchema.LogEntry> log, long value) {
        return new ProofSchema.State(Map.of(R, value), Map.of(R, new ArrayList<>(log)), Map.of());
    }
}
