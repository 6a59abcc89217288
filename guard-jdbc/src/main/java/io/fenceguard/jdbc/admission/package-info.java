/**
 * The admission protocol's store in the database: {@link io.fenceguard.jdbc.admission.JdbcHighWaterStore} keeps
 * high-water marks, the nonces of request signatures and idempotency keys in the guard's tables (created by
 * {@code fenceguard-db}'s migrations), beside the Redis store of {@code fenceguard-redis}. Needs
 * {@code fenceguard-admission}, which SQL fencing alone does not.
 */
package io.fenceguard.jdbc.admission;
