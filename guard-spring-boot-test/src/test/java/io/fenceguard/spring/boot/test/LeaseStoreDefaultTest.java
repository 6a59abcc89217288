package io.fenceguard.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.spring.boot.test.accounts.AccountsApplication;
import io.fenceguard.test.support.faults.PausableLeaseProvider;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.test.context.ActiveProfiles;

/** Test contexts take the in-memory store by default, below every property source of the application's. */
class LeaseStoreDefaultTest {

    @Nested
    @SpringBootTest(classes = AccountsApplication.class)
    class WithoutAStoreOfTheApplication {

        @Autowired
        LeaseManager leases;

        @Autowired
        ConfigurableEnvironment environment;

        @Test
        void leasesAreInMemoryBehindAPausableProvider() {
            assertThat(leases.provider()).isInstanceOf(PausableLeaseProvider.class);
            assertThat(((PausableLeaseProvider) leases.provider()).delegate()).isInstanceOf(InMemoryLeaseProvider.class);
            assertThat(environment.getProperty("fenceguard.lease.store")).isEqualTo("memory");
        }

        @Test
        void theDefaultIsTheLastPropertySource() {
            PropertySource<?> last = environment.getPropertySources().stream().reduce((a, b) -> b).orElseThrow();
            assertThat(last.getName()).isEqualTo(MemoryLeaseStoreContextCustomizerFactory.PROPERTY_SOURCE);
        }
    }

    @Nested
    @SpringBootTest(classes = AccountsApplication.class)
    @ActiveProfiles("ownstore")
    class WithAStoreOfTheApplication {

        @Autowired
        ConfigurableEnvironment environment;

        @Test
        void theApplicationsOwnValueWins() {
            assertThat(environment.getProperty("fenceguard.lease.store")).isEqualTo("MEMORY");
        }
    }
}
