package io.fenceguard.example.ledger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Sends what deposits left in the outbox (the audit service was down, or the process died between
 * the deposit's commit and its audit call), each account under a lease of its own.
 */
@Component
public class AuditRelay {

    private static final Logger log = LoggerFactory.getLogger(AuditRelay.class);

    private final AuditOutbox outbox;
    private final LedgerDao ledger;

    public AuditRelay(AuditOutbox outbox, LedgerDao ledger) {
        this.outbox = outbox;
        this.ledger = ledger;
    }

    @Scheduled(initialDelayString = "${example.audit.relay-interval:1s}", fixedDelayString = "${example.audit.relay-interval:1s}")
    public void relayPending() {
        for (String account : outbox.accountsWithPending()) {
            try {
                ledger.relay(account);
            } catch (RuntimeException e) {
                log.warn("relaying the audit calls of account {} failed ({}); next round", account, e.toString());
            }
        }
    }
}
