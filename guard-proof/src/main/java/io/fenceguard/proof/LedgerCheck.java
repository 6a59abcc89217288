package io.fenceguard.proof;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The example ledger's invariants, read from its database once the audit outbox is empty: balance = initial +
 * Σ audited amounts, every acknowledged deposit audited (nothing lost), no deposit audited twice, every audited
 * deposit one that a client sent, each entry's recorded balance the running sum, and the entries of an account in
 * token order (seq order never goes back in token).
 */
final class LedgerCheck {

    private final String url;
    private final String user;
    private final String password;

    LedgerCheck(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    long pendingAudits() throws SQLException {
        return count("SELECT COUNT(*) FROM audit_outbox WHERE sent = 0");
    }

    long count(String sql) throws SQLException {
        try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql); ResultSet rows = s.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** The violations found (empty when every invariant holds), one line each naming the account and what broke. */
    List<String> violations(long initial, Map<String, Set<Long>> attempted, Map<String, Set<Long>> acknowledged)
            throws SQLException {
        List<String> violations = new ArrayList<>();
        try (Connection c = connect()) {
            for (String account : attempted.keySet()) {
                long balance = balance(c, account);
                Set<Long> audited = new HashSet<>();
                long running = initial;
                long lastToken = Long.MIN_VALUE;
                long lastGap = 0;
                try (PreparedStatement s = c.prepareStatement(
                        "SELECT seq, token, amount, balance FROM audit_entries WHERE account_id = ? ORDER BY seq")) {
                    s.setString(1, account);
                    try (ResultSet rows = s.executeQuery()) {
                        while (rows.next()) {
                            long seq = rows.getLong(1);
                            long token = rows.getLong(2);
                            long amount = rows.getLong(3);
                            running += amount;
                            if (!audited.add(amount)) {
                                violations.add(account + ": deposit " + amount + " audited twice (seq " + seq + ")");
                            }
                            // A lost update leaves every later entry off by the same amount: each new gap is named
                            // once, with the entry where it opened.
                            long gap = running - rows.getLong(4);
                            if (gap != lastGap) {
                                violations.add(account + ": entry " + seq + " records balance " + rows.getLong(4)
                                        + ", the running sum is " + running
                                        + (gap == 0 ? "" : " (" + gap + " lost; later entries are off by the same)"));
                                lastGap = gap;
                            }
                            if (token < lastToken) {
                                violations.add(account + ": entry " + seq + " has token " + token + " after " + lastToken);
                            }
                            lastToken = Math.max(lastToken, token);
                        }
                    }
                }
                long sum = audited.stream().mapToLong(Long::longValue).sum();
                if (balance != initial + sum) {
                    violations.add(account + ": balance " + balance + " != initial " + initial + " + Σ audited " + sum);
                }
                Set<Long> lost = new HashSet<>(acknowledged.get(account));
                lost.removeAll(audited);
                if (!lost.isEmpty()) {
                    violations.add(account + ": acknowledged deposits not audited (lost): " + lost);
                }
                Set<Long> unknown = new HashSet<>(audited);
                unknown.removeAll(attempted.get(account));
                if (!unknown.isEmpty()) {
                    violations.add(account + ": audited deposits no client sent: " + unknown);
                }
            }
        }
        return violations;
    }

    private static long balance(Connection c, String account) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT balance FROM accounts WHERE id = ?")) {
            s.setString(1, account);
            try (ResultSet rows = s.executeQuery()) {
                if (!rows.next()) {
                    throw new IllegalStateException("account " + account + " is missing");
                }
                return rows.getLong(1);
            }
        }
    }
}
