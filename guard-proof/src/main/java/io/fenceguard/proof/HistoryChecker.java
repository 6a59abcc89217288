package io.fenceguard.proof;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Reads the recorded history and the final database state and counts what must never happen:
 * <ul>
 *   <li><b>lost acknowledged writes</b>: an acknowledged write that a later admitted write of another
 *       operation did not build on (it read a smaller value than this one wrote), or that is missing from
 *       the log; a retried request applied twice is one operation (its entries share the op id), so its
 *       second entry, which read what the first read, is not a lost write;</li>
 *   <li><b>stale writes admitted</b>: a write admitted after a write with a greater token was
 *       admitted for the same resource (admission order is the log's sequence);</li>
 *   <li><b>duplicate tokens</b>: one token granted to two acquisitions of the same resource;</li>
 *   <li><b>ledger mismatches</b>: an account whose total differs from the sum of its entries.</li>
 * </ul>
 */
final class HistoryChecker {

    /** One anomaly, placed in time for the chart. */
    record Anomaly(String kind, String resource, long token, long at, String detail) {
    }

    record Findings(int ops, int ok, int failed, int unknown, double availability, int lostAcknowledged,
            int staleAdmitted, int duplicateTokens, int ledgerMismatches, int writesAdmitted,
            Map<String, Long> failuresByKind, List<Anomaly> anomalies) {

        int anomalyCount() {
            return lostAcknowledged + staleAdmitted + duplicateTokens + ledgerMismatches;
        }
    }

    private HistoryChecker() {
    }

    static Findings check(List<Op> history, ProofSchema.State state) {
        Map<String, Op> byId = new HashMap<>();
        history.forEach(op -> byId.put(op.id(), op));
        List<Anomaly> anomalies = new ArrayList<>();
        int lost = 0;
        int stale = 0;
        int admitted = 0;
        Map<String, ProofSchema.LogEntry> logged = new HashMap<>();
        for (List<ProofSchema.LogEntry> entries : state.log().values()) {
            admitted += entries.size();
            long[] laterMinRead = laterMinReads(entries);
            long maxToken = Long.MIN_VALUE;
            for (int i = 0; i < entries.size(); i++) {
                ProofSchema.LogEntry e = entries.get(i);
                logged.put(e.opId(), e);
                Op op = byId.get(e.opId());
                long at = op != null ? op.end() : 0;
                if (e.token() < maxToken) {
                    stale++;
                    anomalies.add(new Anomaly("stale-admitted", e.resource(), e.token(), at,
                            "seq " + e.seq() + " token " + e.token() + " after " + maxToken));
                }
                maxToken = Math.max(maxToken, e.token());
                long laterRead = laterMinRead[i];
                if (op != null && op.ok() && laterRead < e.written()) {
                    lost++;
                    anomalies.add(new Anomaly("lost-ack", e.resource(), e.token(), at,
                            "seq " + e.seq() + " wrote " + e.written() + ", a later write read " + laterRead));
                }
            }
        }
        for (Op op : history) {
            if (op.ok() && !logged.containsKey(op.id())) {
                lost++;
                anomalies.add(new Anomaly("lost-ack", op.resource(), op.token(), op.end(), "acknowledged, not in the log"));
            }
        }
        int duplicates = duplicates(history, anomalies);
        int mismatches = 0;
        for (String account : Topology.ACCOUNTS) {
            long total = state.values().getOrDefault(account, 0L);
            long sum = state.ledgerSums().getOrDefault(account, 0L);
            if (total != sum) {
                mismatches++;
                anomalies.add(new Anomaly("ledger-mismatch", account, 0, lastEnd(history),
                        "total " + total + " but entries sum to " + sum));
            }
        }
        int ok = (int) history.stream().filter(Op::ok).count();
        int unknown = (int) history.stream().filter(op -> Op.UNKNOWN.equals(op.outcome())).count();
        Map<String, Long> byKind = history.stream().filter(op -> op.error() != null)
                .collect(Collectors.groupingBy(Op::error, TreeMap::new, Collectors.counting()));
        return new Findings(history.size(), ok, history.size() - ok - unknown, unknown,
                history.isEmpty() ? 0 : (double) ok / history.size(), lost, stale, duplicates, mismatches, admitted,
                byKind, anomalies);
    }

    /**
     * Per position i: the smallest value read by an entry after i of another operation than entry i's. One
     * pass from the end keeping the smallest read, its operation, and the smallest read of any other operation.
     */
    static long[] laterMinReads(List<ProofSchema.LogEntry> entries) {
        long[] result = new long[entries.size()];
        long min1 = Long.MAX_VALUE;
        String op1 = null;
        long min2 = Long.MAX_VALUE;   // smallest read of an operation other than op1
        for (int i = entries.size() - 1; i >= 0; i--) {
            ProofSchema.LogEntry e = entries.get(i);
            result[i] = e.opId().equals(op1) ? min2 : min1;
            if (e.read() < min1) {
                if (!e.opId().equals(op1)) {
                    min2 = min1;
                }
                min1 = e.read();
                op1 = e.opId();
            } else if (!e.opId().equals(op1)) {
                min2 = Math.min(min2, e.read());
            }
        }
        return result;
    }

    private static int duplicates(List<Op> history, List<Anomaly> anomalies) {
        Map<String, List<Op>> grants = history.stream().filter(op -> op.token() != null)
                .collect(Collectors.groupingBy(op -> op.resource() + "#" + op.token()));
        int duplicates = 0;
        for (List<Op> same : grants.values()) {
            if (same.size() > 1) {
                duplicates += same.size() - 1;
                Op second = same.stream().sorted(java.util.Comparator.comparingLong(Op::start)).toList().get(1);
                anomalies.add(new Anomaly("duplicate-token", second.resource(), second.token(), second.start(),
                        "token " + second.token() + " granted " + same.size() + " times"));
            }
        }
        return duplicates;
    }

    private static long lastEnd(List<Op> history) {
        return history.stream().mapToLong(Op::end).max().orElse(0);
    }
}
