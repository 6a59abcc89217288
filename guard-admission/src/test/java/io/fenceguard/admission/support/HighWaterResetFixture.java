package io.fenceguard.admission.support;

import io.fenceguard.admission.HighWaterReset;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.SigningKeys;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The keys, moment and orders of the reset tests: the store in memory is reset here (HighWaterResetTest), the JDBC
 * store in fenceguard-jdbc (this module's test jar). One instance per test: it holds that test's audit records.
 */
public final class HighWaterResetFixture {

    public static final byte[] HEADER_KEY = "header-signing-key-of-32-bytes!!".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] OPERATOR_KEY = "operator-key-of-at-least-32-byte".getBytes(StandardCharsets.US_ASCII);
    public static final Instant NOW = Instant.parse("2026-11-23T14:00:00Z");
    public static final SigningKeys KEYS = SigningKeys.of(Map.of("k1", HEADER_KEY), "k1");
    /** The mark that locks a resource out for good, until an operator resets it. */
    public static final FencingToken MAX = FencingToken.of(Long.MAX_VALUE);
    public static final String OPERATOR = "alice";
    public static final String REASON = "token from a leaked signer";

    private final List<HighWaterReset.Record> audit = new CopyOnWriteArrayList<>();

    /** An order from {@link #OPERATOR} for {@link #REASON}, signed with {@code key} at {@code at}. */
    public static String order(byte[] key, ResourceName r, FencingToken from, FencingToken to, Instant at) {
        return HighWaterReset.order(key, r, from, to, OPERATOR, REASON, at);
    }

    /** The operator's resets of {@code store} on a clock fixed at {@code now}, each recorded in {@link #audit()}. */
    public HighWaterReset reset(HighWaterStore store, Instant now) {
        return HighWaterReset.of(store, OPERATOR_KEY, KEYS, audit::add, Clock.fixed(now, ZoneOffset.UTC));
    }

    /** The records of the resets made by {@link #reset}, in order. */
    public List<HighWaterReset.Record> audit() {
        return audit;
    }
}
