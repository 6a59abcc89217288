package io.fenceguard.spring.dao.orm;

import io.fenceguard.spring.dao.FencingExceptionTranslator;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.orm.jpa.EntityManagerFactoryInfo;
import org.springframework.orm.jpa.vendor.HibernateJpaDialect;

/**
 * Installs the {@link FencingExceptionTranslator} as the JDBC exception translator of the Hibernate JPA dialect
 * of every EntityManagerFactory bean. The dialect translates for the transaction manager (flush at commit), for
 * repositories and for {@code @Repository} beans; without this, Hibernate wraps a refusal as a generic
 * {@code JDBCException} and Spring reports a {@code JpaSystemException}. Exceptions that are not fenceguard's
 * keep Hibernate's own translation. A dialect of another vendor is left alone.
 */
public class HibernateFencingTranslationPostProcessor implements BeanPostProcessor {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof EntityManagerFactoryInfo info && info.getJpaDialect() instanceof HibernateJpaDialect dialect) {
            dialect.setJdbcExceptionTranslator(FencingExceptionTranslator.around(null));
        }
        return bean;
    }
}
