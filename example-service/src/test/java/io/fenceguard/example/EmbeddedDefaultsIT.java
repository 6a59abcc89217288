package io.fenceguard.example;

import org.junit.jupiter.api.Test;

/** The jar on its embedded defaults: embedded Redis and PostgreSQL from Maven, nothing configured. */
class EmbeddedDefaultsIT extends LedgerContract {

    @Test
    void ledgerContractHoldsOnEmbeddedDefaults() throws Exception {
        try (RunningJar app = RunningJar.start("embedded", COMMON)) {
            runContract(app);
        }
    }
}
