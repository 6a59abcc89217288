package io.fenceguard.spring.boot.autoconfigure.dao;

import static io.fenceguard.spring.boot.autoconfigure.jdbc.FencedWrites.TABLE;
import static io.fenceguard.spring.boot.autoconfigure.jdbc.FencedWrites.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.Lease;
import io.fenceguard.db.FenceguardMigrations;
import io.fenceguard.jdbc.FencingRefusedException.Reason;
import io.fenceguard.reactor.ReactiveLeaseContext;
import io.fenceguard.spring.boot.autoconfigure.jdbc.FencedWrites;
import io.fenceguard.spring.boot.autoconfigure.jdbc.ScratchDatabase;
import io.fenceguard.spring.boot.autoconfigure.webflux.FenceguardReactiveAutoConfiguration;
import io.fenceguard.spring.dao.FencingRefusedUsageException;
import io.fenceguard.spring.dao.StaleTokenFailureException;
import io.fenceguard.test.support.JdbcEndpoint;
import io.fenceguard.test.support.TestServers;
import java.net.URI;
import java.util.Arrays;
import java.util.function.LongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.r2dbc.autoconfigure.DataR2dbcAutoConfiguration;
import org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.annotation.Id;
import org.springframework.data.r2dbc.core.R2dbcEntityTemplate;
import org.springframework.data.relational.core.mapping.Table;
import org.springframework.r2dbc.core.DatabaseClient;
import reactor.core.publisher.Mono;

/**
 * The exception type a reactive application sees for a stale write and for a write without a lease, through
 * Spring's DatabaseClient and Spring Data R2DBC, on PostgreSQL: the same as on JDBC and JPA
 * ({@link DataAccessExceptionTranslationTest}).
 */
class R2dbcExceptionTranslationTest {

    private ScratchDatabase db;
    private ApplicationContextRunner runner;

    @BeforeEach
    void database() throws Exception {
        db = ScratchDatabase.of("postgresql");
        FenceguardMigrations.migrate(db.physical());
        FencedWrites.recreate(db);
        JdbcEndpoint postgres = TestServers.postgres();
        URI uri = URI.create(postgres.url().substring("jdbc:".length()));
        String schema = Arrays.stream(db.datasourceProperties()).filter(p -> p.startsWith("spring.datasource.url="))
                .findFirst().orElseThrow().replaceFirst(".*currentSchema=([^&]+).*", "$1");
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(R2dbcAutoConfiguration.class, DataR2dbcAutoConfiguration.class,
                        FenceguardReactiveAutoConfiguration.class, FenceguardExceptionTranslationAutoConfiguration.class))
                .withPropertyValues("spring.r2dbc.url=r2dbc:postgresql://" + uri.getHost() + ":"
                                + (uri.getPort() < 0 ? 5432 : uri.getPort()) + uri.getPath() + "?schema=" + schema,
                        "spring.r2dbc.username=" + postgres.user(), "spring.r2dbc.password=" + postgres.password(),
                        "spring.r2dbc.pool.enabled=false", "fenceguard.jdbc.tables=" + TABLE);
    }

    @AfterEach
    void drop() {
        db.close();
    }

    @Test
    void databaseClient() {
        runner.run(context -> {
            DatabaseClient client = context.getBean(DatabaseClient.class);
            assertPath(balance -> client.sql("UPDATE " + TABLE + " SET balance = $1 WHERE id = 1").bind(0, balance)
                    .fetch().rowsUpdated());
        });
    }

    @Test
    void springDataR2dbc() {
        runner.run(context -> {
            R2dbcEntityTemplate template = context.getBean(R2dbcEntityTemplate.class);
            assertPath(balance -> template.update(new R2dbcAccount(1, balance)).map(account -> 1L));
        });
    }

    /** Row 1 written by token 10, then: token 9 stale, no lease refused; the row keeps token 10's write. */
    private void assertPath(LongFunction<Mono<Long>> write) throws Exception {
        assertThat(write.apply(110).contextWrite(as(10)).block()).isEqualTo(1L);
        assertThat(row(db)).isEqualTo("110@10");
        assertThatThrownBy(() -> write.apply(666).contextWrite(as(9)).block())
                .isInstanceOfSatisfying(StaleTokenFailureException.class,
                        e -> assertThat(e.fence()).contains(Fence.of("account:1", "9")))
                .isInstanceOf(ConcurrencyFailureException.class);
        assertThatThrownBy(() -> write.apply(777).block())
                .isInstanceOfSatisfying(FencingRefusedUsageException.class,
                        e -> assertThat(e.reason()).contains(Reason.NO_LEASE))
                .isInstanceOf(InvalidDataAccessApiUsageException.class);
        assertThat(row(db)).isEqualTo("110@10");
    }

    private static java.util.function.Function<reactor.util.context.Context, reactor.util.context.Context> as(long token) {
        return ReactiveLeaseContext.with(Lease.presented(Fence.of("account:1", Long.toString(token)), "test"));
    }

    @Table(TABLE)
    record R2dbcAccount(@Id int id, long balance) {
    }
}
