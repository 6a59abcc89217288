package io.fenceguard.redis;

import io.fenceguard.admission.Admission;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.admission.IdempotencyRetention;
import io.fenceguard.admission.IdempotentAdmissionStore;
import io.fenceguard.admission.NonBlockingAdmissionStore;
import io.fenceguard.admission.NonceStore;
import io.fenceguard.admission.SignedAdmissionStore;
import io.fenceguard.admission.TokenBound;
import io.fenceguard.core.Fence;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import io.fenceguard.redis.internal.ScriptCache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * High-water marks in Redis, one string key per resource ({@code <prefix>{fg-hw}:<resource>}), compared
 * and updated in one Lua script. The keys never expire: forgetting a mark would admit stale tokens.
 *
 * <p><b>Data loss.</b> Redis forgets marks on {@code FLUSHALL}, on a restart without persistence and on
 * a failover to a replica that missed writes. Next to the marks lives a floor key, written when the
 * store starts: the {@link TokenBound}'s ceiling, the highest token that can have been minted then.
 * Every admission checks it in the same script; when it is gone, the marks went with it, and the
 * script sets a new floor from the ceiling passed with the admission (now plus the allowed skew).
 * Tokens below the floor are refused as stale, so a token minted before the loss is never admitted
 * after it, whatever was forgotten; the holders take new leases, whose tokens (clock tokens) pass the
 * floor once the allowed skew has elapsed. All keys share one hash slot ({@code {fg-hw}}), so that the
 * check and the mark are one atomic step also on Redis Cluster (where the store lives on one node).
 *
 * <p>A request-signed admission ({@link #admit(Fence, String, java.time.Instant)}) records the nonce and
 * admits the token in one script: one round trip per admission. The store keeps idempotency keys too (in a
 * {@link RedisIdempotencyStore} with the same client and prefix); a request with a key has its nonce, its
 * admission and its key's claim decided by one script ({@link #admitClaiming}).
 */
public final class RedisHighWaterStore implements HighWaterStore, NonceStore, IdempotentAdmissionStore {

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9:._-]{0,64}");
    static final String SLOT = "{fg-hw}:";

    /** How long one call waits for Redis, whatever the client's own timeouts and retries are. */
    public static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

    private final RedisScriptClient client;
    private final String prefix;
    private final TokenBound bound;
    private final RedisIdempotencyStore keys;
    private final NonBlockingAdmissionStore nonBlocking;

    private final Duration retention;

    private RedisHighWaterStore(RedisScriptClient client, String prefix, TokenBound bound, Duration retention) {
        this.client = Objects.requireNonNull(client, "client");
        this.prefix = prefix;
        this.bound = Objects.requireNonNull(bound, "bound");
        this.retention = retention;
        this.keys = new RedisIdempotencyStore(client, prefix, retention);
        this.nonBlocking = new RedisNonBlockingAdmissions(this, client);
    }

    /**
     * This store (same client, keys and floor) keeping recorded responses to idempotency keys for {@code retention}
     * (default {@link RedisIdempotencyStore#RETENTION}); at least {@link RedisIdempotencyStore#IN_PROGRESS_TIMEOUT}.
     */
    public RedisHighWaterStore withIdempotencyRetention(Duration retention) {
        return new RedisHighWaterStore(client, prefix, bound, IdempotencyRetention.checked(retention));
    }

    /** How long recorded responses to idempotency keys answer retries. */
    public Duration idempotencyRetention() {
        return retention;
    }

    /**
     * Keys start with {@code prefix}, such as {@code fg:http:} (0 to 64 characters from
     * {@code A-Z a-z 0-9 : . _ -}); after a loss of data, tokens up to {@code bound}'s ceiling at the
     * time the loss is noticed are refused. Sets the floor if there is none yet.
     *
     * @throws FenceguardException when Redis cannot be reached to set the floor
     */
    public static RedisHighWaterStore of(RedisScriptClient client, String prefix, TokenBound bound) {
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("a key prefix is 0 to 64 characters from A-Z a-z 0-9 : . _ -");
        }
        RedisHighWaterStore store = new RedisHighWaterStore(client, prefix, bound, RedisIdempotencyStore.RETENTION);
        store.initFloor();
        return store;
    }

    /** With the clock-floor bound ({@link TokenBound#clockFloor()}), right for the Redis lease provider's tokens. */
    public static RedisHighWaterStore of(RedisScriptClient client, String prefix) {
        return of(client, prefix, TokenBound.clockFloor());
    }

    /** The key holding {@code resource}'s mark. */
    public String key(ResourceName resource) {
        return prefix + SLOT + resource.value();
    }

    /** The key holding the floor below which every token is refused. */
    public String floorKey() {
        return prefix + SLOT + "floor";
    }

    /** The floor now, if set. */
    public java.util.Optional<FencingToken> floor() {
        List<?> value = (List<?>) call("local v = redis.call('GET', KEYS[1]) if v then return {v} end return {}",
                RedisScriptClient.Reply.LIST, List.of(floorKey()), List.of());
        return value.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(FencingToken.parse(String.valueOf(value.get(0))));
    }

    /**
     * The store's scripts in the server's cache ahead of their first use (one pipelined call, waited for at most
     * {@link #CALL_TIMEOUT}): each first admission of a kind then costs one round trip, not a refused EVALSHA and the
     * script sent after it. Then the floor.
     */
    private void initFloor() {
        ScriptCache.load(client, HighWaterScripts.SCRIPTS, CALL_TIMEOUT, "high-water");
        try {
            call(HighWaterScripts.INIT_FLOOR, RedisScriptClient.Reply.LONG, List.of(floorKey()), List.of(Long.toString(bound.ceiling().value())));
        } catch (RuntimeException e) {
            throw new FenceguardException("high-water store unavailable: could not read or set its floor "
                    + floorKey() + ": " + e.getMessage(), null, null, e);
        }
    }

    @Override
    public Admission admit(Fence presented) {
        return admission(presented, admissionCall(presented, HighWaterScripts.ADMIT, admitKeys(presented),
                admitArgs(presented)));
    }

    /**
     * The same admissions without blocking ({@link RedisNonBlockingAdmissions}: the same scripts on the same keys,
     * each answered within {@link #CALL_TIMEOUT} or failed), when the client's asynchronous calls hold no thread
     * ({@link RedisScriptClient#answersWithoutBlocking()}: Lettuce, Redisson) and the bound is read without a store.
     */
    @Override
    public java.util.Optional<NonBlockingAdmissionStore> nonBlocking() {
        return client.answersWithoutBlocking() && bound.readsWithoutBlocking() ? java.util.Optional.of(nonBlocking)
                : java.util.Optional.empty();
    }

    /** The keys of {@link HighWaterScripts#ADMIT}: the resource's mark and the floor. */
    List<String> admitKeys(Fence presented) {
        return List.of(key(presented.resource()), floorKey());
    }

    /** The arguments of {@link HighWaterScripts#ADMIT}: the token and the bound's ceiling now. */
    List<String> admitArgs(Fence presented) {
        return List.of(Long.toString(presented.token().value()), Long.toString(bound.ceiling().value()));
    }

    /** The keys of {@link HighWaterScripts#ADMIT_SIGNED}: the mark, the floor and the nonce. */
    List<String> signedKeys(Fence presented, String nonce) {
        return List.of(key(presented.resource()), floorKey(), nonceKey(nonce));
    }

    /** The arguments of {@link HighWaterScripts#ADMIT_SIGNED}: the token, the ceiling and how long the nonce is kept. */
    List<String> signedArgs(Fence presented, java.time.Instant expires) {
        return List.of(Long.toString(presented.token().value()), Long.toString(bound.ceiling().value()),
                Long.toString(ttlMillis(expires)));
    }

    /** The whole batch in one script: one round trip, whatever its size and resources. */
    @Override
    public List<Admission> admitAll(List<Fence> presented) {
        if (presented.isEmpty()) {
            return List.of();
        }
        java.util.Map<ResourceName, Integer> keyIndex = new java.util.HashMap<>();
        List<String> keys = new java.util.ArrayList<>();
        keys.add(floorKey());
        List<String> args = new java.util.ArrayList<>(1 + 2 * presented.size());
        args.add(Long.toString(bound.ceiling().value()));
        for (Fence fence : presented) {
            Integer index = keyIndex.get(fence.resource());
            if (index == null) {
                keys.add(key(fence.resource()));
                index = keys.size();   // Lua's KEYS count from 1
                keyIndex.put(fence.resource(), index);
            }
            args.add(Integer.toString(index));
            args.add(Long.toString(fence.token().value()));
        }
        List<?> reply;
        try {
            reply = (List<?>) call(HighWaterScripts.ADMIT_ALL, RedisScriptClient.Reply.LIST, keys, args);
        } catch (RuntimeException e) {
            Fence first = presented.get(0);
            throw new FenceguardException("high-water store unavailable for a batch of " + presented.size()
                    + " starting with '" + first.resource() + "': " + e.getMessage(), first.resource(), first.token(), e);
        }
        if (reply.size() != 3 * presented.size()) {
            throw new FenceguardException("high-water store answered " + reply.size() / 3 + " admissions for a batch of "
                    + presented.size(), presented.get(0).resource(), presented.get(0).token(), null);
        }
        List<Admission> admissions = new java.util.ArrayList<>(presented.size());
        for (int i = 0; i < presented.size(); i++) {
            admissions.add(admission(presented.get(i), reply.subList(3 * i, 3 * i + 3)));
        }
        return admissions;
    }

    /** The nonce's first use and the admission in one script (one round trip); empty when the nonce was used. */
    @Override
    public java.util.Optional<Admission> admit(Fence presented, String nonce, java.time.Instant expires) {
        List<?> reply = admissionCall(presented, HighWaterScripts.ADMIT_SIGNED, signedKeys(presented, nonce),
                signedArgs(presented, expires));
        if (((Number) reply.get(0)).longValue() == -2) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(admission(presented, reply));
    }

    /**
     * Request-signed admissions of one fence that arrived together, in one script (one round trip): every nonce
     * recorded, the fence admitted once when any was fresh; the first fresh one has that admission, the other
     * fresh ones continue a claim.
     */
    @Override
    public List<java.util.Optional<Admission>> admitEach(Fence presented, List<Nonce> nonces) {
        if (nonces.size() <= 1) {
            return nonces.isEmpty() ? List.of()
                    : List.of(admit(presented, nonces.get(0).value(), nonces.get(0).expires()));
        }
        List<String> keys = new ArrayList<>(nonces.size() + 2);
        List<String> args = new ArrayList<>(nonces.size() + 2);
        keys.add(key(presented.resource()));
        keys.add(floorKey());
        args.add(Long.toString(presented.token().value()));
        args.add(Long.toString(bound.ceiling().value()));
        for (Nonce nonce : nonces) {
            keys.add(nonceKey(nonce.value()));
            args.add(Long.toString(ttlMillis(nonce.expires())));
        }
        List<?> reply = admissionCall(presented, HighWaterScripts.ADMIT_SIGNED_EACH, keys, args);
        if (reply.size() != 3 + nonces.size()) {
            throw new FenceguardException("high-water store for '" + presented.resource() + "' answered "
                    + reply.size() + " values for " + nonces.size() + " nonces", presented.resource(),
                    presented.token(), null);
        }
        Admission decided = ((Number) reply.get(0)).longValue() == -2 ? null : admission(presented, reply);
        List<Boolean> fresh = new ArrayList<>(nonces.size());
        for (int i = 0; i < nonces.size(); i++) {
            fresh.add(((Number) reply.get(3 + i)).longValue() == 1);
        }
        return SignedAdmissionStore.groupAnswers(fresh, decided);
    }

    /** The nonce (when request-signed), the admission and, when admitted, the key's claim in one script. */
    @Override
    public ClaimedAdmission admitClaiming(Fence presented, Nonce nonce, String key, String fingerprint) {
        ClaimingCall call = claimingCall(presented, nonce, key, fingerprint);
        return claimedAdmission(presented, admissionCall(presented, HighWaterScripts.ADMIT_CLAIMING, call.keys(),
                call.args()));
    }

    /** The keys and arguments of {@link HighWaterScripts#ADMIT_CLAIMING}, blocking or not. */
    record ClaimingCall(List<String> keys, List<String> args) {
    }

    ClaimingCall claimingCall(Fence presented, Nonce nonce, String key, String fingerprint) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        List<String> keyNames = new ArrayList<>(4);
        List<String> args = new ArrayList<>(5);
        keyNames.add(key(presented.resource()));
        keyNames.add(floorKey());
        keyNames.add(keys.recordKey(presented.resource(), key));
        args.add(Long.toString(presented.token().value()));
        args.add(Long.toString(bound.ceiling().value()));
        args.add(fingerprint);
        args.add(Long.toString(RedisIdempotencyStore.IN_PROGRESS_TIMEOUT.toMillis()));
        if (nonce != null) {
            keyNames.add(nonceKey(nonce.value()));
            args.add(Long.toString(ttlMillis(nonce.expires())));
        }
        return new ClaimingCall(keyNames, args);
    }

    /** The answer of {@link HighWaterScripts#ADMIT_CLAIMING}: replayed, refused, or admitted with the key's claim. */
    static ClaimedAdmission claimedAdmission(Fence presented, List<?> reply) {
        if (((Number) reply.get(0)).longValue() == -2) {
            return ClaimedAdmission.replayed();
        }
        Admission admission = admission(presented, reply);
        return new ClaimedAdmission(admission, admission.admitted() ? RedisIdempotencyStore.claim(reply, 3) : null);
    }

    /** The idempotency records next to the marks: the same client, prefix and retention. */
    RedisIdempotencyStore records() {
        return keys;
    }

    @Override
    public Claim claim(Fence presented, String key, String fingerprint) {
        return keys.claim(presented, key, fingerprint);
    }

    @Override
    public void complete(ResourceName resource, String key, RecordedResponse response) {
        keys.complete(resource, key, response);
    }

    @Override
    public void abandon(ResourceName resource, String key) {
        keys.abandon(resource, key);
    }

    static Admission admission(Fence presented, List<?> reply) {
        long verdict = ((Number) reply.get(0)).longValue();
        FencingToken highWater = FencingToken.parse(String.valueOf(reply.get(1)));
        if (verdict > 0) {
            String replaced = reply.size() > 2 ? String.valueOf(reply.get(2)) : null;
            return replaced == null ? Admission.claimed(presented) : new Admission(presented, presented.token(),
                    Admission.Outcome.CLAIMED, new Admission.Replaced(replaced.isEmpty() ? null : FencingToken.parse(replaced)));
        }
        if (verdict < 0) {
            return new Admission(presented, highWater, Admission.Outcome.STALE);
        }
        return Admission.of(presented, highWater);
    }

    @Override
    public boolean reset(ResourceName resource, FencingToken expected, FencingToken mark) {
        String key = key(resource);
        try {
            Object done = call(HighWaterScripts.RESET, RedisScriptClient.Reply.LONG, List.of(key),
                    List.of(expected == null ? "" : Long.toString(expected.value()), mark == null ? "" : Long.toString(mark.value())));
            return isOne(done);
        } catch (RuntimeException e) {
            throw new FenceguardException("high-water store unavailable for '" + resource + "': " + e.getMessage(),
                    resource, null, e);
        }
    }

    /**
     * Request signatures' nonces as keys that expire with them ({@code SET NX PX}). A loss of data
     * forgets them too, but every token minted before the loss is then below the floor, so a replayed
     * request is still refused.
     */
    @Override
    public boolean firstUse(String nonce, java.time.Instant expires) {
        try {
            Object set = call(HighWaterScripts.FIRST_USE,
                    RedisScriptClient.Reply.LONG, List.of(nonceKey(nonce)), List.of(Long.toString(ttlMillis(expires))));
            return isOne(set);
        } catch (RuntimeException e) {
            throw new FenceguardException("nonce store unavailable: " + e.getMessage(), null, null, e);
        }
    }

    String nonceKey(String nonce) {
        return prefix + SLOT + "nonce:" + nonce;
    }

    static long ttlMillis(java.time.Instant expires) {
        return Math.max(1, java.time.Duration.between(java.time.Instant.now(), expires).toMillis());
    }

    /** A script admitting {@code presented}, its list answer; a failure comes out as the store being unavailable. */
    private List<?> admissionCall(Fence presented, String script, List<String> keys, List<String> args) {
        try {
            return (List<?>) call(script, RedisScriptClient.Reply.LIST, keys, args);
        } catch (RuntimeException e) {
            throw new FenceguardException("high-water store unavailable for '" + presented.resource() + "': "
                    + e.getMessage(), presented.resource(), presented.token(), e);
        }
    }

    private Object call(String script, RedisScriptClient.Reply reply, List<String> keys, List<String> args) {
        return call(client, script, reply, keys, args);
    }

    /** One script, its answer awaited at most {@link #CALL_TIMEOUT}; a failure comes out as a runtime exception. */
    static Object call(RedisScriptClient client, String script, RedisScriptClient.Reply reply, List<String> keys,
            List<String> args) {
        long timeout = CALL_TIMEOUT.toNanos();
        CompletableFuture<Object> answer = client.eval(script, reply, keys, args, System.nanoTime() + timeout)
                .toCompletableFuture();
        try {
            return answer.get(timeout, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Redis", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no answer from Redis within " + CALL_TIMEOUT.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
    }

    static boolean isOne(Object value) {
        return value instanceof Number n ? n.longValue() == 1L : "1".equals(String.valueOf(value));
    }

    /** The Redis client, for the {@link RedisIdempotencyStore} next to this store. */
    RedisScriptClient client() {
        return client;
    }

    /** The key prefix. */
    public String prefix() {
        return prefix;
    }

    @Override
    public String toString() {
        return "RedisHighWaterStore[" + prefix + ", " + bound + "]";
    }
}
