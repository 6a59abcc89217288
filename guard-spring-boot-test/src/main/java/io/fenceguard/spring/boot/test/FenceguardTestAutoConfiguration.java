package io.fenceguard.spring.boot.test;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.spring.boot.autoconfigure.core.ConditionalOnLeaseStore;
import io.fenceguard.spring.boot.autoconfigure.core.FenceguardLeaseAutoConfiguration;
import io.fenceguard.spring.boot.autoconfigure.core.LeaseStore;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * What a test context adds to fenceguard's own wiring: the in-memory store behind a {@link PausableLeaseProvider}
 * (so that {@link FencingTester} can withhold a superseded holder's renewals, as a paused process sends none), and
 * the {@link FencingTester}. Listed for full contexts and for Boot's slice tests; the jar is a test dependency, so
 * it never reaches the application itself.
 */
@AutoConfiguration(before = FenceguardLeaseAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "fenceguard.enabled", matchIfMissing = true)
public class FenceguardTestAutoConfiguration {

    /** The store {@code fenceguard.lease.store=memory} chooses, pausable; the application's own provider wins. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LeaseProvider.class)
    @ConditionalOnLeaseStore(LeaseStore.MEMORY)
    public PausableLeaseProvider pausableInMemoryLeaseProvider() {
        return PausableLeaseProvider.wrap(InMemoryLeaseProvider.create());
    }

    @Bean
    @ConditionalOnMissingBean
    public FencingTester fencingTester(ObjectProvider<LeaseManager> leases) {
        return new FencingTester(leases::getObject);
    }
}
