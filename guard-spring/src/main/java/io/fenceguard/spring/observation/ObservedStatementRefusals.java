package io.fenceguard.spring.observation;

import io.fenceguard.jdbc.FencingRefusedException;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.jdbc.StatementRefusalListener;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Statements refused by fenceguard-jdbc (stale tokens at the database, statements the guard will not send)
 * into {@link ObservedRefusals}, as layer {@code jdbc}. Loaded only with fenceguard-jdbc.
 */
public class ObservedStatementRefusals implements StatementRefusalListener {

    private final ObservedRefusals refusals;

    public ObservedStatementRefusals(ObservedRefusals refusals) {
        this.refusals = refusals;
    }

    @Override
    public void refused(SQLException refusal) {
        if (refusal instanceof StaleTokenException stale) {
            refusals.refused("jdbc", "stale", stale.resource() == null ? null : stale.resource().value(),
                    stale.token() == null ? null : String.valueOf(stale.token().value()), null, stale.getMessage());
        } else if (refusal instanceof FencingRefusedException refused) {
            refusals.refused("jdbc", refused.reason().name().toLowerCase(Locale.ROOT),
                    refused.fence().map(f -> f.resource().value()).orElse(null),
                    refused.fence().map(f -> String.valueOf(f.token().value())).orElse(null), null,
                    refused.getMessage());
        }
    }
}
