package io.fenceguard.redis;

import io.fenceguard.admission.IdempotencyRetention;
import io.fenceguard.admission.IdempotencyStore;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.ResourceName;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * The first responses to idempotency keys in Redis, next to a {@link RedisHighWaterStore}'s marks: one hash
 * per resource and key ({@code <prefix>{fg-hw}:idem:<resource>:<key>}) holding the first request's
 * fingerprint and token, and its response once completed. Each call is one script, so concurrent claims of a
 * key have exactly one first.
 *
 * <p>A claim expires after {@link #IN_PROGRESS_TIMEOUT} unless completed: a request whose process died does
 * not block its key for ever, and a retry after that runs again (as with the JDBC store outside a
 * transaction; a handler running longer than that may see its retry run too). A completed key answers
 * retries for {@link #RETENTION}. Redis cannot commit the record with the handler's own writes: a crash
 * between the handler's commit and {@link #complete} leaves the key claimed until the claim expires.
 */
public final class RedisIdempotencyStore implements IdempotencyStore {

    /** How long a claim may stay unanswered before a retry takes it over. */
    public static final Duration IN_PROGRESS_TIMEOUT = IdempotencyRetention.IN_PROGRESS_TIMEOUT;
    /** How long a recorded response answers retries. */
    public static final Duration RETENTION = IdempotencyRetention.DEFAULT;

    // The claim of the key whose record is `record`, for a request with `fingerprint` and `token`, held `timeout` ms
    // unless completed. {0}: first; {1, status, content type ('' for none), base64 body}: completed; {2}: in progress;
    // {3}: other request. Also part of RedisHighWaterStore's admission with a claim.
    static final String CLAIM_FUNCTION = """
            local function claim(record, fingerprint, token, timeout)
              local first = redis.call('HGET', record, 'fp')
              if not first then
                redis.call('HSET', record, 'fp', fingerprint, 'token', token)
                redis.call('PEXPIRE', record, timeout)
                return {0}
              end
              if first ~= fingerprint then
                return {3}
              end
              local status = redis.call('HGET', record, 'status')
              if not status then
                return {2}
              end
              return {1, status, redis.call('HGET', record, 'type') or '', redis.call('HGET', record, 'body') or ''}
            end
            """;

    private static final String CLAIM = CLAIM_FUNCTION + "return claim(KEYS[1], ARGV[1], ARGV[2], ARGV[3])\n";

    // Only a key still claimed is completed: one whose claim expired was taken over or is free again.
    static final String COMPLETE = """
            if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'status') == 1 then
              return 0
            end
            redis.call('HSET', KEYS[1], 'status', ARGV[1], 'type', ARGV[2], 'body', ARGV[3])
            redis.call('PEXPIRE', KEYS[1], ARGV[4])
            return 1
            """;

    // A completed key stays: its response answers retries.
    static final String ABANDON = """
            if redis.call('HEXISTS', KEYS[1], 'status') == 0 then
              redis.call('DEL', KEYS[1])
              return 1
            end
            return 0
            """;
    /** The scripts of this store, to load ahead of their first use. */
    static final List<String> SCRIPTS = List.of(CLAIM, COMPLETE, ABANDON);


    private final RedisScriptClient client;
    private final String prefix;
    private final Duration retention;

    RedisIdempotencyStore(RedisScriptClient client, String prefix, Duration retention) {
        this.client = client;
        this.prefix = prefix;
        this.retention = retention;
    }

    /** The store next to {@code marks}: the same Redis client, key prefix and retention. */
    public static RedisIdempotencyStore nextTo(RedisHighWaterStore marks) {
        Objects.requireNonNull(marks, "marks");
        return new RedisIdempotencyStore(marks.client(), marks.prefix(), marks.idempotencyRetention());
    }

    /** The key of {@code key}'s record for {@code resource} (the resource's length keeps the two apart). */
    public String recordKey(ResourceName resource, String key) {
        return prefix + RedisHighWaterStore.SLOT + "idem:" + resource.value().length() + ":" + resource.value()
                + ":" + key;
    }

    @Override
    public Claim claim(Fence presented, String key, String fingerprint) {
        Objects.requireNonNull(fingerprint, "fingerprint");
        List<?> reply;
        try {
            reply = (List<?>) RedisHighWaterStore.call(client, CLAIM, RedisScriptClient.Reply.LIST,
                    List.of(recordKey(presented.resource(), key)), List.of(fingerprint,
                            Long.toString(presented.token().value()), Long.toString(IN_PROGRESS_TIMEOUT.toMillis())));
        } catch (RuntimeException e) {
            throw new FenceguardException("idempotency store unavailable for '" + presented.resource() + "': "
                    + e.getMessage(), presented.resource(), presented.token(), e);
        }
        return claim(reply, 0);
    }

    /** The claim answered by {@link #CLAIM_FUNCTION} in {@code reply} from index {@code from} on. */
    static Claim claim(List<?> reply, int from) {
        long kind = ((Number) reply.get(from)).longValue();
        if (kind == 0) {
            return Claim.first();
        }
        if (kind == 2) {
            return Claim.inProgress();
        }
        if (kind == 3) {
            return Claim.otherRequest();
        }
        String contentType = String.valueOf(reply.get(from + 2));
        return Claim.completed(new RecordedResponse(Integer.parseInt(String.valueOf(reply.get(from + 1))),
                contentType.isEmpty() ? null : contentType,
                Base64.getDecoder().decode(String.valueOf(reply.get(from + 3)))));
    }

    @Override
    public void complete(ResourceName resource, String key, RecordedResponse response) {
        try {
            RedisHighWaterStore.call(client, COMPLETE, RedisScriptClient.Reply.LONG, List.of(recordKey(resource, key)),
                    completeArgs(response, retention));
        } catch (RuntimeException e) {
            throw new FenceguardException("idempotency store unavailable for '" + resource + "': " + e.getMessage(),
                    resource, null, e);
        }
    }

    /** The arguments of {@link #COMPLETE}: the response, kept for {@code retention}. */
    static List<String> completeArgs(RecordedResponse response, Duration retention) {
        return List.of(Integer.toString(response.status()), response.contentType() == null ? "" : response.contentType(),
                Base64.getEncoder().encodeToString(response.body() == null ? new byte[0] : response.body()),
                Long.toString(retention.toMillis()));
    }

    @Override
    public void abandon(ResourceName resource, String key) {
        try {
            RedisHighWaterStore.call(client, ABANDON, RedisScriptClient.Reply.LONG, List.of(recordKey(resource, key)),
                    List.of());
        } catch (RuntimeException e) {
            throw new FenceguardException("idempotency store unavailable for '" + resource + "': " + e.getMessage(),
                    resource, null, e);
        }
    }

    @Override
    public String toString() {
        return "RedisIdempotencyStore[" + prefix + "]";
    }
}
