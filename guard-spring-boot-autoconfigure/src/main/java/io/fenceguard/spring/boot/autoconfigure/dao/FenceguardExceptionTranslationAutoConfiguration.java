package io.fenceguard.spring.boot.autoconfigure.dao;

import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.spring.dao.FencingExceptionTranslationPostProcessor;
import io.fenceguard.spring.dao.FencingRefusals;
import io.fenceguard.spring.dao.orm.HibernateFencingTranslationPostProcessor;
import io.fenceguard.spring.dao.r2dbc.FencingExecuteFunction;
import io.r2dbc.spi.ConnectionFactory;
import java.sql.SQLException;
import org.jooq.ExecuteContext;
import org.mybatis.spring.SqlSessionTemplate;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.jooq.autoconfigure.ExceptionTranslatorExecuteListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.support.PersistenceExceptionTranslator;
import org.springframework.jdbc.support.JdbcAccessor;
import org.springframework.orm.jpa.vendor.HibernateJpaDialect;
import org.springframework.r2dbc.core.DatabaseClient;

/**
 * One exception vocabulary on every data access path: fenceguard's translation installed where each path
 * translates, so a stale write reaches the application as a {@code StaleTokenFailureException} (a
 * {@code ConcurrencyFailureException}) and a refused one as a {@code FencingRefusedUsageException} (an
 * {@code InvalidDataAccessApiUsageException}), whichever API wrote.
 */
@AutoConfiguration
@ConditionalOnClass({StaleTokenException.class, DataAccessException.class, FencingRefusals.class})
public class FenceguardExceptionTranslationAutoConfiguration {

    /** JdbcTemplate, NamedParameterJdbcTemplate, JdbcClient, Spring Data JDBC: through the templates' translator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JdbcAccessor.class)
    static class JdbcTemplateTranslationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        static FencingExceptionTranslationPostProcessor fencingExceptionTranslationPostProcessor() {
            return new FencingExceptionTranslationPostProcessor();
        }
    }

    /** JPA on Hibernate: the JDBC translator of each EntityManagerFactory's dialect. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(value = {HibernateJpaDialect.class, JdbcAccessor.class}, name = "org.hibernate.JDBCException")
    static class HibernateTranslationConfiguration {

        @Bean
        @ConditionalOnMissingBean
        static HibernateFencingTranslationPostProcessor hibernateFencingTranslationPostProcessor() {
            return new HibernateFencingTranslationPostProcessor();
        }
    }

    /**
     * R2DBC: Boot's {@code DatabaseClient} (bean {@value #BOOT_DATABASE_CLIENT}, the one Spring Data R2DBC uses)
     * built the same way with {@link FencingExecuteFunction}. A client of the application's own is left as it is:
     * give it {@code .executeFunction(new FencingExecuteFunction())}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({DatabaseClient.class, ConnectionFactory.class})
    static class R2dbcTranslationConfiguration {

        static final String BOOT_DATABASE_CLIENT = "r2dbcDatabaseClient";

        @Bean
        static BeanPostProcessor fencingDatabaseClientPostProcessor() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    if (BOOT_DATABASE_CLIENT.equals(beanName) && bean instanceof DatabaseClient client) {
                        return DatabaseClient.builder().connectionFactory(client.getConnectionFactory())
                                .executeFunction(new FencingExecuteFunction()).build();
                    }
                    return bean;
                }
            };
        }
    }

    /**
     * jOOQ: Boot's default translating listener gets fenceguard's translation in front. A translating listener
     * of the application's own is left as it is.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ExceptionTranslatorExecuteListener.class, ExecuteContext.class, JdbcAccessor.class})
    static class JooqTranslationConfiguration {

        @Bean
        static BeanPostProcessor fencingJooqTranslatorPostProcessor() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    return bean == ExceptionTranslatorExecuteListener.DEFAULT
                            ? new FencingJooqExceptionTranslator(ExceptionTranslatorExecuteListener.DEFAULT) : bean;
                }
            };
        }

        /** fenceguard's refusals first (the statement's SQLException or a cause of it), the rest by the delegate. */
        static final class FencingJooqExceptionTranslator implements ExceptionTranslatorExecuteListener {

            private final ExceptionTranslatorExecuteListener delegate;

            FencingJooqExceptionTranslator(ExceptionTranslatorExecuteListener delegate) {
                this.delegate = delegate;
            }

            @Override
            public void exception(ExecuteContext context) {
                SQLException exception = context.sqlException();
                DataAccessException fencing = exception == null ? null
                        : FencingRefusals.translate("jOOQ", context.sql(), exception);
                if (fencing != null) {
                    context.exception(fencing);
                } else {
                    delegate.exception(context);
                }
            }
        }
    }

    /**
     * MyBatis: every {@code SqlSessionTemplate} bean (mybatis-spring-boot's, which its mappers use) built anew on
     * the same factory and executor type, with fenceguard's translation in front of its own.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({SqlSessionTemplate.class, JdbcAccessor.class})
    static class MyBatisTranslationConfiguration {

        @Bean
        static BeanPostProcessor fencingSqlSessionTemplatePostProcessor() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    if (bean instanceof SqlSessionTemplate template
                            && !(template.getPersistenceExceptionTranslator() instanceof FencingFirst)) {
                        return new SqlSessionTemplate(template.getSqlSessionFactory(), template.getExecutorType(),
                                new FencingFirst(template.getPersistenceExceptionTranslator()));
                    }
                    return bean;
                }
            };
        }
    }

    /** fenceguard's refusals first, everything else by the translator that was there. */
    record FencingFirst(PersistenceExceptionTranslator delegate) implements PersistenceExceptionTranslator {

        @Override
        public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
            DataAccessException fencing = FencingRefusals.translate(null, null, ex);
            return fencing != null || delegate == null ? fencing : delegate.translateExceptionIfPossible(ex);
        }
    }
}
