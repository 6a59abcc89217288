package io.fenceguard.admission;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Where {@link HighWaterReset} records every applied reset; a failure to record undoes the reset. */
@FunctionalInterface
public interface ResetAudit {

    void record(HighWaterReset.Record record);

    /** Records at WARN on the logger {@code fenceguard.audit.high-water}, for log-based audit trails. */
    static ResetAudit log() {
        Logger audit = LoggerFactory.getLogger("fenceguard.audit.high-water");
        return record -> audit.warn("high-water reset: resource={} from={} to={} operator={} orderedAt={} appliedAt={} "
                + "reason={}", record.resource(), record.from() == null ? "none" : record.from(),
                record.to() == null ? "none" : record.to(), record.operator(), record.orderedAt(), record.appliedAt(),
                record.reason());
    }
}
