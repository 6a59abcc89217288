package io.fenceguard.example.events;

import io.fenceguard.example.ledger.AuditDao;

/**
 * An audit entry as an event's body: {@code account,seq,amount,balance} (account ids hold no commas, see
 * {@code AccountIds}).
 */
public record AuditEvent(String accountId, long seq, long amount, long balance) {

    static AuditEvent of(String accountId, AuditDao.Entry entry) {
        return new AuditEvent(accountId, entry.seq(), entry.amount(), entry.balance());
    }

    String text() {
        return accountId + "," + seq + "," + amount + "," + balance;
    }

    /** The event in {@code text}; an {@link IllegalArgumentException} when it is not one. */
    static AuditEvent parse(String text) {
        String[] fields = text == null ? new String[0] : text.split(",", -1);
        if (fields.length != 4 || fields[0].isEmpty()) {
            throw new IllegalArgumentException("not an audit event (account,seq,amount,balance): " + text);
        }
        try {
            return new AuditEvent(fields[0], Long.parseLong(fields[1]), Long.parseLong(fields[2]),
                    Long.parseLong(fields[3]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an audit event (account,seq,amount,balance): " + text, e);
        }
    }
}
