package io.fenceguard.spring.observation;

import io.fenceguard.messaging.MessageRefusalListener;
import io.fenceguard.messaging.MessageRefusedException;
import java.util.Locale;

/**
 * Messages refused by message admission into {@link ObservedRefusals}, as layer {@code messaging}: the
 * application passes it to {@code MessageAdmission.of(store, listener)}. Loaded only with fenceguard-messaging.
 */
public class ObservedMessageRefusals implements MessageRefusalListener {

    private final ObservedRefusals refusals;

    public ObservedMessageRefusals(ObservedRefusals refusals) {
        this.refusals = refusals;
    }

    @Override
    public void refused(String source, MessageRefusedException refusal) {
        refusals.refused("messaging", refusal.reason().name().toLowerCase(Locale.ROOT),
                refusal.resource() == null ? null : refusal.resource().value(),
                refusal.token() == null ? null : String.valueOf(refusal.token().value()),
                refusal.highWater().map(hw -> String.valueOf(hw.value())).orElse(null), refusal.getMessage());
    }
}
