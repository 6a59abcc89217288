package io.fenceguard.autoconfigure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.GuardException;
import io.fenceguard.core.InvalidResourceNameException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.LeaseTimeoutException;
import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.testsupport.TestServers;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class FencedMethodTest {

    private static RedissonClient redisson;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, GuardCoreAutoConfiguration.class,
                    FencedMethodAutoConfiguration.class))
            .withBean(RedissonClient.class, () -> redisson)
            .withPropertyValues("guard.key-prefix=fgfenced" + System.nanoTime() + ":", "guard.lease-time=5s")
            .withBean(AccountDao.class);

    @BeforeAll
    static void connect() {
        Config config = new Config();
        config.useSingleServer().setAddress(TestServers.redis().uri());
        redisson = Redisson.create(config);
    }

    @AfterAll
    static void disconnect() {
        redisson.shutdown();
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
            Lease outer = LeaseContext.requireValid();
            return outer.token().value();
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

    @Test
    void runsTheMethodUnderALeaseOnTheResourceItNames() {
        runner.run(context -> {
            AccountDao dao = context.getBean(AccountDao.class);
            Lease seen = dao.update(42);
            assertThat(seen.resource().value()).isEqualTo("account:42");
            assertThat(seen.isValid()).as("released after the call").isFalse();
            assertThat(LeaseContext.current()).isEmpty();
            assertThat(dao.update(42).token()).isGreaterThan(seen.token());
            assertThat(dao.unfenced()).isFalse();
        });
    }

    @Test
    void waitsAsLongAsTheAnnotationSaysAndFailsWithTheReason() {
        runner.run(context -> {
            AccountDao dao = context.getBean(AccountDao.class);
            LeaseManager manager = context.getBean(LeaseManager.class);
            try (Lease held = manager.acquire("account:7", Duration.ofSeconds(1))) {
                // Another thread is another holder: it must wait and give up after 50 ms.
                Throwable[] failure = new Throwable[1];
                Thread other = new Thread(() -> {
                    try {
                        dao.updateQuickly(7);
                    } catch (Throwable t) {
                        failure[0] = t;
                    }
                });
                other.start();
                other.join();
                assertThat(failure[0]).isInstanceOf(LeaseTimeoutException.class).hasMessageContaining("account:7");
                // The same thread re-enters its own lease with the same token.
                assertThat(dao.nested(7)).isEqualTo(held.token().value());
            }
        });
    }

    @Test
    void badExpressionsAndNamesFailClearly() {
        runner.run(context -> {
            AccountDao dao = context.getBean(AccountDao.class);
            assertThatThrownBy(() -> dao.broken("x")).isInstanceOf(GuardException.class)
                    .hasMessageContaining("#missing.length()");
            assertThatThrownBy(() -> dao.named(null)).isInstanceOf(GuardException.class).hasMessageContaining("null");
            assertThatThrownBy(() -> dao.named("a b")).isInstanceOf(InvalidResourceNameException.class);
        });
    }
}
