/**
 * One exception vocabulary on every data access path: {@link io.fenceguard.spring.dao.FencingExceptionTranslator}
 * turns fenceguard's refusals, wherever they are in a cause chain, into Spring's {@code DataAccessException}s
 * ({@link io.fenceguard.spring.dao.StaleTokenFailureException}, a {@code ConcurrencyFailureException};
 * {@link io.fenceguard.spring.dao.FencingRefusedUsageException}, an {@code InvalidDataAccessApiUsageException};
 * {@link io.fenceguard.spring.dao.LeaseLostFailureException}), and hands every other exception to the translator
 * that was there. The post-processors install it where JdbcTemplate and Hibernate translate.
 */
package io.fenceguard.spring.dao;
