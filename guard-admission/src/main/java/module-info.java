/**
 * Admission of fenced requests and messages at the resource: the fencing header, verdicts, high-water, nonce and
 * idempotency stores (in memory and JDBC), and the inbound and outbound fences. {@code internal} is not exported.
 */
module io.fenceguard.admission {
    requires transitive io.fenceguard.core;
    requires transitive java.net.http;
    requires transitive java.sql;
    requires org.slf4j;

    exports io.fenceguard.admission;
}
