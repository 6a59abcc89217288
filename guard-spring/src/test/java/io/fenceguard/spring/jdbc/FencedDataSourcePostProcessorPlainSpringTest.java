package io.fenceguard.spring.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.Refusal;
import io.fenceguard.core.RefusalListener;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencedTable;
import io.fenceguard.jdbc.FencingConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The DataSource post-processor registered by hand in a plain Spring context (no Spring Boot). */
class FencedDataSourcePostProcessorPlainSpringTest {

    static final AtomicReference<RefusalListener> given = new AtomicReference<>();
    static final AtomicInteger configured = new AtomicInteger();

    @Configuration(proxyBeanMethods = false)
    static class App {

        @Bean
        static FencedDataSourcePostProcessor fencedDataSourcePostProcessor() {
            return new FencedDataSourcePostProcessor(refusals -> {
                configured.incrementAndGet();
                given.set(refusals);
                return FencingConfig.builder().onRefusal(refusals).fence(FencedTable.of("accounts"))
                        .verifyCatalog(false).build();
            }, () -> Set.of("reporting"));
        }

        @Bean
        DataSource main() {
            return h2("plain-main");
        }

        @Bean
        DataSource reporting() {
            return h2("plain-reporting");
        }

        @Bean
        RefusalLog refusalLog() {
            return new RefusalLog();
        }

        private static DataSource h2(String name) {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
            return dataSource;
        }
    }

    /** A listener bean of the application's. */
    static class RefusalLog implements RefusalListener {
        final List<Refusal> heard = new ArrayList<>();

        @Override
        public void refused(Refusal refusal) {
            heard.add(refusal);
        }
    }

    @Test
    void fencesTheDataSourceBeansButTheExcludedOnesAndTellsTheListenerBeansOfRefusals() {
        configured.set(0);
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(App.class)) {
            DataSource main = context.getBean("main", DataSource.class);
            assertThat(main).isInstanceOf(FencedDataSource.class);
            assertThat(((FencedDataSource) main).config().tables()).containsExactly(FencedTable.of("accounts"));
            assertThat(FencedDataSource.isFenced(context.getBean("reporting", DataSource.class))).isFalse();
            assertThat(configured).as("configured once, at the first DataSource").hasValue(1);

            Refusal refusal = Refusal.builder(Refusal.Layer.JDBC, "no_lease").build();
            given.get().refused(refusal);
            assertThat(context.getBean(RefusalLog.class).heard).containsExactly(refusal);
        }
    }
}
