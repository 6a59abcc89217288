package io.fenceguard.spring.boot.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.spring.boot.autoconfigure.redis.FenceguardRedisAutoConfiguration;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.test.support.TestRedisson;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code @Fenced} on Spring beans, on Redis and in memory. */
class FencedMethodTest {

    private static final RedissonClient redisson = TestRedisson.shared();

    /** A context on {@code store}: Redis through a RedissonClient bean, or memory. */
    private static ApplicationContextRunner runner(String store) {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                        FenceguardRedisAutoConfiguration.class, FenceguardLeaseAutoConfiguration.class,
                        FenceguardFencedMethodAutoConfiguration.class))
                .withPropertyValues("fenceguard.redis.key-prefix=fgfenced" + System.nanoTime() + ":",
                        "fenceguard.lease.lease-time=5s", "fenceguard.lease.store=" + store)
                .withBean(AccountDao.class).withBean(LedgerImpl.class);
        return store.equals("redis") ? runner.withBean(RedissonClient.class, () -> redisson) : runner;
    }

    /** A DAO as users write it. */
    public static class AccountDao {

        @Fenced("'account:' + #id")
        public Lease update(long id) {
            return LeaseContext.requireValid();
        }

        @Fenced(value = "'account:' + #id", waitFor = "50ms")
        public Lease updateQuickly(long id) {
            return LeaseContext.requireValid();
        }

        @Fenced("'account:' + #id")
        public long nested(long id) {
            return LeaseContext.requireValid().token().value();
        }

        @Fenced("#name")
        public void named(String name) {
        }

        @Fenced("#missing.length()")
        public void broken(String name) {
        }

        public boolean unfenced() {
            return LeaseContext.current().isPresent();
        }
    }

    /** {@code @Fenced} declared on an interface method. */
    public interface Ledger {
        @Fenced("'ledger:' + #id")
        Lease post(long id);
    }

    public static class LedgerImpl implements Ledger {
        @Override
        public Lease post(long id) {
            return LeaseContext.requireValid();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "memory"})
    void runsTheMethodUnderALeaseOnTheResourceItNames(String store) {
        runner(store).run(context -> {
            assertThat(context.getBean(LeaseManager.class).provider())
                    .isInstanceOf(store.equals("redis") ? RedisLeaseProvider.class : InMemoryLeaseProvider.class);
            AccountDao dao = context.getBean(AccountDao.class);
            Lease seen = dao.update(42);
            assertThat(seen.resource().value()).isEqualTo("account:42");
            assertThat(seen.isValid()).as("released after the call").isFalse();
            assertThat(LeaseContext.current()).isEmpty();
            assertThat(dao.update(42).token()).isGreaterThan(seen.token());
            assertThat(dao.unfenced()).isFalse();
            assertThat(context.getBean(Ledger.class).post(7).resource().value()).isEqualTo("ledger:7");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "memory"})
    void waitsAsLongAsTheAnnotationSaysAndFailsWithTheReason(String store) {
        runner(store).run(context -> {
            AccountDao dao = context.getBean(AccountDao.class);
            LeaseManager manager = context.getBean(LeaseManager.class);
            try (Lease held = manager.acquire("account:7", Duration.ofSeconds(1))) {
                // Another thread is another holder: it must wait and give up after 50 ms.
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread other = new Thread(() -> {
                    try {
                        dao.updateQuickly(7);
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
                other.start();
                other.join();
                assertThat(failure.get()).isInstanceOf(LeaseTimeoutException.class).hasMessageContaining("account:7");
                // The same thread re-enters its own lease with the same token.
                assertThat(dao.nested(7)).isEqualTo(held.token().value());
            }
        });
    }

    @Test
    void badExpressionsAndNamesFailClearly() {
        runner("memory").run(context -> {
            AccountDao dao = context.getBean(AccountDao.class);
            assertThatThrownBy(() -> dao.broken("x")).isInstanceOf(FenceguardException.class)
                    .hasMessageContaining("#missing.length()");
            assertThatThrownBy(() -> dao.named(null)).isInstanceOf(FenceguardException.class).hasMessageContaining("null");
            assertThatThrownBy(() -> dao.named("a b")).isInstanceOf(InvalidResourceNameException.class);
        });
    }

    @Test
    void fencesEvenWithoutBootsAopAutoConfiguration() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FenceguardLeaseAutoConfiguration.class,
                        FenceguardFencedMethodAutoConfiguration.class))
                .withPropertyValues("fenceguard.lease.store=memory")
                .withBean(AccountDao.class)
                .run(context -> assertThat(context.getBean(AccountDao.class).update(1).resource().value())
                        .isEqualTo("account:1"));
    }
}
