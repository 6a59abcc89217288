/**
 * Leases on Redis, through the client the application already has: Redisson, Jedis, Lettuce or Spring Data Redis
 * (each optional, with a package of its own). {@code internal} is not exported.
 */
module io.fenceguard.redis {
    requires transitive io.fenceguard.core;
    requires transitive java.sql;
    requires io.github.resilience4j.core;
    requires io.github.resilience4j.retry;
    requires io.github.resilience4j.circuitbreaker;
    requires org.slf4j;

    requires static io.fenceguard.admission;
    requires static redisson;
    requires static redis.clients.jedis;
    requires static lettuce.core;
    requires static spring.data.redis;
    requires static spring.core;
    requires static spring.tx;

    exports io.fenceguard.redis;
    exports io.fenceguard.redis.jedis;
    exports io.fenceguard.redis.redisson;
    exports io.fenceguard.redis.springdata;
}
