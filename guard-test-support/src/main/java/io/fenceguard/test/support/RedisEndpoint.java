package io.fenceguard.test.support;

/** Where a Redis server listens. */
public record RedisEndpoint(String host, int port) {

    /** The address in the form Redisson expects. */
    public String uri() {
        return "redis://" + host + ":" + port;
    }
}
