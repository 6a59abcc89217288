/**
 * Admission of fenced requests and messages at the resource: the fencing header, verdicts, the high-water, nonce
 * and idempotency stores' interfaces and the store in memory, and the inbound and outbound fences. No JDBC and no
 * HTTP client: the JDBC store is fenceguard-jdbc's, the Redis store fenceguard-redis's, the JDK HttpClient's
 * header fenceguard-http-filter's. {@code internal} is not exported.
 */
module io.fenceguard.admission {
    requires transitive io.fenceguard.core;
    requires org.slf4j;

    exports io.fenceguard.admission;
}
