/**
 * SQL fencing for other drivers' fences: {@link io.fenceguard.jdbc.sql.SqlFencePlanner} plans each SQL
 * string as {@code FencedDataSource} does (pass through, rewrite with the token bound, or refuse) and
 * returns a {@link io.fenceguard.jdbc.sql.SqlFencePlan}; the R2DBC fence of {@code fenceguard-reactor}
 * is built on it.
 */
package io.fenceguard.jdbc.sql;
