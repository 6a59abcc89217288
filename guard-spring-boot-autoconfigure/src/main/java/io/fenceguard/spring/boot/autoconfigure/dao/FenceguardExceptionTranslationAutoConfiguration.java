package io.fenceguard.spring.boot.autoconfigure.dao;

import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.spring.dao.FencingExceptionTranslationPostProcessor;
import io.fenceguard.spring.dao.FencingExceptionTranslator;
import io.fenceguard.spring.dao.orm.HibernateFencingTranslationPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.support.JdbcAccessor;
import org.springframework.orm.jpa.vendor.HibernateJpaDialect;

/**
 * One exception vocabulary on every data access path: installs {@link FencingExceptionTranslator} where each
 * path translates, so a stale write reaches the application as a {@code StaleTokenFailureException} (a
 * {@code ConcurrencyFailureException}) and a refused one as a {@code FencingRefusedUsageException} (an
 * {@code InvalidDataAccessApiUsageException}), whichever API wrote.
 */
@AutoConfiguration
@ConditionalOnClass({StaleTokenException.class, FencingExceptionTranslator.class, JdbcAccessor.class})
public class FenceguardExceptionTranslationAutoConfiguration {

    /** JdbcTemplate, NamedParameterJdbcTemplate, JdbcClient, Spring Data JDBC: through the templates' translator. */
    @Bean
    @ConditionalOnMissingBean
    static FencingExceptionTranslationPostProcessor fencingExceptionTranslationPostProcessor() {
        return new FencingExceptionTranslationPostProcessor();
    }

    /** JPA on Hibernate: the JDBC translator of each EntityManagerFactory's dialect. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(value = HibernateJpaDialect.class, name = "org.hibernate.JDBCException")
    static class HibernateTranslationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        static HibernateFencingTranslationPostProcessor hibernateFencingTranslationPostProcessor() {
            return new HibernateFencingTranslationPostProcessor();
        }
    }
}
