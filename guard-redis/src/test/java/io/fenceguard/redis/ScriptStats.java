package io.fenceguard.redis;

import io.fenceguard.redis.internal.RedisLeaseScripts;
import io.fenceguard.test.support.RedisProcess;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a redis-server of a test's own tells of the lease scripts: its script cache and its command statistics. */
final class ScriptStats {

    private ScriptStats() {
    }

    /** SCRIPT EXISTS of every lease script, in {@link RedisLeaseScripts#all()} order: 1 cached, 0 not. */
    static List<Long> cached(RedisProcess redis) throws NoSuchAlgorithmException {
        List<String> args = new ArrayList<>(List.of("SCRIPT", "EXISTS"));
        MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
        for (String script : RedisLeaseScripts.all()) {
            args.add(HexFormat.of().formatHex(sha1.digest(script.getBytes(StandardCharsets.UTF_8))));
        }
        List<Long> exists = new ArrayList<>();
        for (Object each : (List<?>) redis.call(args.toArray(String[]::new))) {
            exists.add((Long) each);
        }
        return exists;
    }

    /**
     * NOSCRIPT answers (EVALSHA of a script not in the server's cache) since the statistics were last reset: Redis
     * counts them among the errors by prefix ({@code INFO errorstats}), not among {@code rejected_calls}.
     */
    static long refusedEvalSha(RedisProcess redis) {
        Object info = redis.call("INFO", "errorstats");
        String stats = info instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(info);
        Matcher m = Pattern.compile("errorstat_NOSCRIPT:count=(\\d+)").matcher(stats);
        return m.find() ? Long.parseLong(m.group(1)) : 0L;
    }

    /** Calls of {@code command} (lower case) the server ran since its statistics were last reset. */
    static long commandCalls(RedisProcess redis, String command) {
        Matcher m = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(commandStats(redis));
        return m.find() ? Long.parseLong(m.group(1)) : 0L;
    }

    private static String commandStats(RedisProcess redis) {
        Object info = redis.call("INFO", "commandstats");
        return info instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(info);
    }
}
