package io.fenceguard.example.ledger;

import java.net.URI;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The ledger's HTTP contract: accounts and deposits. */
@RestController
public class LedgerController {

    /** Longest accepted chaos pause. */
    static final int MAX_PAUSE_MS = 120_000;

    private final LedgerDao ledger;

    public LedgerController(LedgerDao ledger) {
        this.ledger = ledger;
    }

    public record BalanceBody(Long balance) {
    }

    public record DepositBody(Long amount, Integer pauseMs) {
    }

    @PutMapping("/accounts/{id}")
    public ResponseEntity<Map<String, Object>> put(@PathVariable String id, @RequestBody BalanceBody body) {
        AccountIds.require(id);
        if (body == null || body.balance() == null) {
            throw new IllegalArgumentException("balance is required");
        }
        if (body.balance() < 0) {
            throw new IllegalArgumentException("balance must not be negative");
        }
        boolean created = ledger.reset(id, body.balance());
        Map<String, Object> account = view(ledger.find(id).orElseThrow(() -> new AccountNotFoundException(id)));
        return created ? ResponseEntity.created(URI.create("/accounts/" + id)).body(account) : ResponseEntity.ok(account);
    }

    @GetMapping("/accounts/{id}")
    public Map<String, Object> get(@PathVariable String id) {
        AccountIds.require(id);
        return view(ledger.find(id).orElseThrow(() -> new AccountNotFoundException(id)));
    }

    @PostMapping("/accounts/{id}/deposits")
    public Map<String, Object> deposit(@PathVariable String id, @RequestBody DepositBody body) {
        AccountIds.require(id);
        if (body == null || body.amount() == null) {
            throw new IllegalArgumentException("amount is required");
        }
        if (body.amount() <= 0) {
            throw new IllegalArgumentException("amount must be positive");
        }
        int pauseMs = body.pauseMs() == null ? 0 : body.pauseMs();
        if (pauseMs < 0 || pauseMs > MAX_PAUSE_MS) {
            throw new IllegalArgumentException("pauseMs must be between 0 and " + MAX_PAUSE_MS);
        }
        LedgerDao.Deposit deposit = ledger.deposit(id, body.amount(), pauseMs);
        return Map.of("balance", deposit.balance(), "token", deposit.token(), "audit",
                deposit.audited() ? "sent" : "pending");
    }

    private static Map<String, Object> view(LedgerDao.Account account) {
        Map<String, Object> view = new java.util.LinkedHashMap<>();
        view.put("id", account.id());
        view.put("balance", account.balance());
        view.put("currentToken", account.currentToken() == null ? 0L : account.currentToken());
        return view;
    }
}
