package io.fenceguard.spring.dao;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.support.JdbcAccessor;

/**
 * Installs the {@link FencingExceptionTranslator} in front of the translator of every {@code JdbcTemplate} bean
 * (any {@link JdbcAccessor}) and of the template inside every {@link NamedParameterJdbcTemplate} bean, so that
 * JdbcTemplate, NamedParameterJdbcTemplate, JdbcClient and Spring Data JDBC, all translating through a
 * JdbcTemplate, report refusals in fenceguard's {@code DataAccessException}s. Idempotent.
 */
public class FencingExceptionTranslationPostProcessor implements BeanPostProcessor {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof JdbcAccessor accessor) {
            install(accessor);
        } else if (bean instanceof NamedParameterJdbcTemplate named
                && named.getJdbcOperations() instanceof JdbcAccessor accessor) {
            install(accessor);
        }
        return bean;
    }

    static void install(JdbcAccessor accessor) {
        accessor.setExceptionTranslator(FencingExceptionTranslator.around(accessor.getExceptionTranslator()));
    }
}
