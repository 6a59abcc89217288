package io.fenceguard.redis.internal;

import io.fenceguard.redis.RedisScriptClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis server's script cache, as every client of this module uses it: the name Redis gives a script (its SHA-1,
 * what EVALSHA sends), and the scripts sent ahead of their first use.
 */
public final class ScriptCache {

    private static final Logger log = LoggerFactory.getLogger(ScriptCache.class);
    /** By script text: fenceguard's scripts are a fixed set of constants. */
    private static final Map<String, String> SHA1 = new ConcurrentHashMap<>();

    private ScriptCache() {
    }

    /** The SHA-1 of {@code script} in hex, the name of the script in the server's cache. */
    public static String sha1(String script) {
        return SHA1.computeIfAbsent(script, ScriptCache::digest);
    }

    /**
     * {@code scripts} in the server's cache before their first use, waited for at most {@code timeout}: a first call
     * then costs one round trip, not a refused EVALSHA and the script sent after it. A server that cannot be reached
     * now gets them at their first use instead ({@code what} names them in the log).
     */
    public static void load(RedisScriptClient client, List<String> scripts, Duration timeout, String what) {
        try {
            client.load(scripts).toCompletableFuture().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.info("fenceguard: could not load the {} scripts into Redis now ({}); each is sent at its first use",
                    what, e.toString());
        }
    }

    private static String digest(String script) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }
}
