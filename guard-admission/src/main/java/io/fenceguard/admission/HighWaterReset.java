package io.fenceguard.admission;

import io.fenceguard.admission.internal.Hmac;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.ResourceName;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's way back from a mark that no holder can reach (a token admitted from a broken or
 * compromised signer): sets a resource's high-water mark to a lower value, or removes it.
 *
 * <p>An order is signed with the operator key, which is not a header signing key (so whoever can mint
 * fencing headers cannot reset marks), names the mark it expects to replace (so a replayed order is
 * refused once the mark has moved, and applying it twice changes nothing), and is valid for
 * {@link #ORDER_LIFETIME} from its time. Every applied reset is written to the {@link ResetAudit}
 * first; if that fails, the mark is put back and the reset refused.
 *
 * <pre>
 * v1;r=account:42;from=9223372036854775807;to=1745000000000001;by=alice;at=1763900000;why=dG9rZW4gZnJvbSBhIGxlYWtlZCBrZXk;s=…
 * </pre>
 * {@code from} and {@code to} are tokens or {@code none}; {@code why} is the reason in unpadded base64url.
 */
public final class HighWaterReset {

    private static final Logger log = LoggerFactory.getLogger(HighWaterReset.class);
    /** How long an order may be used after its time (and how far ahead of this clock its time may be). */
    public static final Duration ORDER_LIFETIME = Duration.ofMinutes(5);
    private static final Pattern OPERATOR = Pattern.compile("[A-Za-z0-9._@-]{1,64}");
    private static final int MAX_REASON = 500;

    private final HighWaterStore store;
    private final Hmac operatorKey;
    private final ResetAudit audit;
    private final Clock clock;

    private HighWaterReset(HighWaterStore store, Hmac operatorKey, ResetAudit audit, Clock clock) {
        this.store = store;
        this.operatorKey = operatorKey;
        this.audit = audit;
        this.clock = clock;
    }

    /**
     * Resets on {@code store} for orders signed with {@code operatorKey} (at least
     * {@value SigningKeys#MIN_KEY_BYTES} bytes, none of {@code signingKeys}), recorded in {@code audit}.
     */
    public static HighWaterReset of(HighWaterStore store, byte[] operatorKey, SigningKeys signingKeys, ResetAudit audit,
            Clock clock) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(audit, "audit");
        Objects.requireNonNull(clock, "clock");
        if (operatorKey == null || operatorKey.length < SigningKeys.MIN_KEY_BYTES) {
            throw new IllegalArgumentException("the operator key has " + (operatorKey == null ? 0 : operatorKey.length)
                    + " bytes; at least " + SigningKeys.MIN_KEY_BYTES + " are needed");
        }
        if (signingKeys.containsSecret(operatorKey)) {
            throw new IllegalArgumentException("the operator key is also a fencing header signing key: whoever signs "
                    + "headers could reset marks; give operators a key of their own");
        }
        return new HighWaterReset(store, Hmac.sha256(operatorKey), audit, clock);
    }

    public static HighWaterReset of(HighWaterStore store, byte[] operatorKey, SigningKeys signingKeys, ResetAudit audit) {
        return of(store, operatorKey, signingKeys, audit, Clock.systemUTC());
    }

    /** What an applied reset changed, as recorded in the audit. */
    public record Record(ResourceName resource, FencingToken from, FencingToken to, String operator, String reason,
            Instant orderedAt, Instant appliedAt) {
    }

    /** The signed order text (for operator tools and tests; the key never leaves the operator). */
    public static String order(byte[] operatorKey, ResourceName resource, FencingToken from, FencingToken to,
            String operator, String reason, Instant at) {
        requireOperator(operator);
        String why = Base64.getUrlEncoder().withoutPadding().encodeToString(requireReason(reason)
                .getBytes(StandardCharsets.UTF_8));
        String body = "v1;r=" + resource.value() + ";from=" + text(from) + ";to=" + text(to) + ";by=" + operator
                + ";at=" + at.getEpochSecond() + ";why=" + why;
        return body + ";s=" + Hmac.sha256(operatorKey).sign(body);
    }

    /**
     * Verifies and applies {@code order}.
     *
     * @throws FenceHeaderException malformed, or untrusted (bad signature, expired, mark not as expected)
     */
    public Record apply(String order) {
        if (order == null || order.length() > 2_000) {
            throw FenceHeaderException.malformed("a reset order is at most 2000 characters");
        }
        String[] parts = order.split(";", -1);
        if (parts.length != 8 || !"v1".equals(parts[0])) {
            throw FenceHeaderException.malformed("a reset order is 'v1;r=;from=;to=;by=;at=;why=;s='");
        }
        String body = order.substring(0, order.lastIndexOf(";s="));
        if (!operatorKey.verify(body, field(parts[7], "s="))) {
            throw FenceHeaderException.untrusted("the reset order's signature does not match the operator key");
        }
        ResourceName resource;
        FencingToken from;
        FencingToken to;
        String operator;
        String reason;
        Instant at;
        try {
            resource = ResourceName.of(field(parts[1], "r="));
            from = token(field(parts[2], "from="));
            to = token(field(parts[3], "to="));
            operator = requireOperator(field(parts[4], "by="));
            at = Instant.ofEpochSecond(Long.parseLong(field(parts[5], "at=")));
            reason = requireReason(new String(Base64.getUrlDecoder().decode(field(parts[6], "why=")),
                    StandardCharsets.UTF_8));
        } catch (InvalidResourceNameException | IllegalArgumentException e) {
            throw FenceHeaderException.malformed("the reset order is malformed: " + e.getMessage());
        }
        Instant now = clock.instant();
        if (at.isBefore(now.minus(ORDER_LIFETIME)) || at.isAfter(now.plus(ORDER_LIFETIME))) {
            throw FenceHeaderException.untrusted("the reset order of " + at + " is outside " + ORDER_LIFETIME
                    + " of now (" + now + ")");
        }
        if (!store.reset(resource, from, to)) {
            throw FenceHeaderException.untrusted("the high-water mark of '" + resource + "' is not " + text(from)
                    + " (any more); nothing was reset");
        }
        Record record = new Record(resource, from, to, operator, reason, at, now);
        try {
            audit.record(record);
        } catch (RuntimeException e) {
            if (!store.reset(resource, to, from)) {
                log.error("fenceguard: reset of '{}' from {} to {} could not be audited and the mark moved on since; "
                        + "it stays applied: {}", resource, text(from), text(to), record, e);
            }
            throw e;
        }
        log.warn("fenceguard: high-water mark of '{}' reset from {} to {} by {}: {}", resource, text(from), text(to),
                operator, reason);
        return record;
    }

    private static String field(String part, String prefix) {
        if (!part.startsWith(prefix)) {
            throw FenceHeaderException.malformed("expected field '" + prefix + "…' in the reset order");
        }
        return part.substring(prefix.length());
    }

    private static FencingToken token(String text) {
        return "none".equals(text) ? null : FencingToken.parse(text);
    }

    private static String text(FencingToken token) {
        return token == null ? "none" : token.toString();
    }

    private static String requireOperator(String operator) {
        if (operator == null || !OPERATOR.matcher(operator).matches()) {
            throw new IllegalArgumentException("an operator is 1 to 64 of A-Z a-z 0-9 . _ @ -");
        }
        return operator;
    }

    private static String requireReason(String reason) {
        if (reason == null || reason.isBlank() || reason.length() > MAX_REASON) {
            throw new IllegalArgumentException("a reason of 1 to " + MAX_REASON + " characters is required");
        }
        return reason;
    }
}
