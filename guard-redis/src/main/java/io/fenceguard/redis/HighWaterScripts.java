package io.fenceguard.redis;

import java.util.List;

/**
 * The Lua scripts of {@link RedisHighWaterStore}, shared by its blocking calls and its non-blocking ones
 * ({@link RedisHighWaterStore#nonBlocking()}), so that both decide alike on the same keys.
 */
final class HighWaterScripts {

    // Tokens are compared as canonical decimal text (shorter is smaller, then lexicographic), since Lua
    // numbers are doubles and lose precision above 2^53. Returns {1|0|-1, high-water}, and for a claim the
    // mark it replaced ('': none), to which a claim whose requests failed is set back.
    static final String ADMIT = """
            local function older(a, b)
              return #a < #b or (#a == #b and a < b)
            end
            local floor = redis.call('GET', KEYS[2])
            if not floor then
              floor = ARGV[2]
              redis.call('SET', KEYS[2], floor)
            end
            local token = ARGV[1]
            if older(token, floor) then
              return {-1, floor}
            end
            local current = redis.call('GET', KEYS[1])
            if current and current == token then
              return {0, current}
            end
            if current and older(token, current) then
              return {-1, current}
            end
            redis.call('SET', KEYS[1], token)
            return {1, token, current or ''}
            """;

    // The nonce (KEYS[3], kept ARGV[3] ms) first, then ADMIT; {-2, '0'}: the nonce was used before, nothing changed.
    static final String ADMIT_SIGNED = """
            if not redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[3]) then
              return {-2, '0'}
            end
            """ + ADMIT;

    // Request-signed admissions of one fence together: KEYS[3..] their nonces, each kept ARGV[i] ms (same index);
    // then, when any nonce was fresh, ADMIT once. Answers {verdict, high-water, replaced mark ('': none), then 1|0
    // per nonce: fresh or used}; verdict -2: no nonce was fresh, nothing changed.
    static final String ADMIT_SIGNED_EACH = """
            local fresh = {}
            local any = false
            for i = 3, #KEYS do
              local new = redis.call('SET', KEYS[i], '1', 'NX', 'PX', ARGV[i])
              fresh[#fresh + 1] = new and 1 or 0
              any = any or new
            end
            local function admit()
            """ + ADMIT + """
            end
            local out = {-2, '0', ''}
            if any then
              out = admit()
              out[3] = out[3] or ''
            end
            for i = 1, #fresh do
              out[#out + 1] = fresh[i]
            end
            return out
            """;

    // ADMIT over a batch, in order: KEYS[1] the floor, KEYS[2..] the batch's resources; ARGV[1] the ceiling, then
    // per fence its resource's key index and token. Each mark is read once and written once, at the end. Answers
    // three entries per fence: {1|0|-1, high-water, replaced mark ('': none or no claim)}.
    static final String ADMIT_ALL = """
            local function older(a, b)
              return #a < #b or (#a == #b and a < b)
            end
            local floor = redis.call('GET', KEYS[1])
            if not floor then
              floor = ARGV[1]
              redis.call('SET', KEYS[1], floor)
            end
            local marks = {}
            local claimed = {}
            local out = {}
            for i = 2, #ARGV, 2 do
              local k = tonumber(ARGV[i])
              local token = ARGV[i + 1]
              local current = marks[k]
              if current == nil then
                current = redis.call('GET', KEYS[k]) or false
                marks[k] = current
              end
              if older(token, floor) then
                out[#out + 1] = -1; out[#out + 1] = floor; out[#out + 1] = ''
              elseif current and current == token then
                out[#out + 1] = 0; out[#out + 1] = current; out[#out + 1] = ''
              elseif current and older(token, current) then
                out[#out + 1] = -1; out[#out + 1] = current; out[#out + 1] = ''
              else
                out[#out + 1] = 1; out[#out + 1] = token; out[#out + 1] = current or ''
                marks[k] = token
                claimed[k] = true
              end
            end
            for k in pairs(claimed) do
              redis.call('SET', KEYS[k], marks[k])
            end
            return out
            """;

    // A request's admission and its idempotency key's claim: KEYS[3] the key's record, KEYS[4] the nonce when the
    // request is request-signed (kept ARGV[5] ms); ARGV[3] the request's fingerprint, ARGV[4] how long a claim is
    // held. The nonce first ({-2, '0', ''}: used before, nothing changed), then ADMIT, then, when admitted, the claim:
    // {verdict, high-water, replaced mark ('': none), then the claim's answer}.
    static final String ADMIT_CLAIMING = """
            if #KEYS > 3 and not redis.call('SET', KEYS[4], '1', 'NX', 'PX', ARGV[5]) then
              return {-2, '0', ''}
            end
            local function admit()
            """ + ADMIT + """
            end
            """ + RedisIdempotencyStore.CLAIM_FUNCTION + """
            local out = admit()
            out[3] = out[3] or ''
            if out[1] < 0 then
              return out
            end
            local claimed = claim(KEYS[3], ARGV[3], ARGV[1], ARGV[4])
            for i = 1, #claimed do
              out[#out + 1] = claimed[i]
            end
            return out
            """;

    static final String INIT_FLOOR = """
            if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
              return 1
            end
            return 0
            """;

    // A nonce's first use: 1 when it was not recorded yet (now recorded for ARGV[1] ms), else 0.
    static final String FIRST_USE = "if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 1 end return 0";

    // Compare-and-set of one mark; '' stands for no mark.
    static final String RESET = """
            local current = redis.call('GET', KEYS[1]) or ''
            if current ~= ARGV[1] then
              return 0
            end
            if ARGV[2] == '' then
              redis.call('DEL', KEYS[1])
            else
              redis.call('SET', KEYS[1], ARGV[2])
            end
            return 1
            """;
    /** Every script of this store and of its idempotency keys. */
    static final List<String> SCRIPTS = java.util.stream.Stream.concat(
            java.util.stream.Stream.of(ADMIT, ADMIT_SIGNED, FIRST_USE, ADMIT_SIGNED_EACH, ADMIT_ALL, ADMIT_CLAIMING, INIT_FLOOR, RESET),
            RedisIdempotencyStore.SCRIPTS.stream()).toList();

    private HighWaterScripts() {
    }
}
