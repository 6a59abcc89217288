package io.fenceguard.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fenceguard.core.FenceguardException;
import io.fenceguard.core.Lease;
import io.fenceguard.core.LeaseContext;
import io.fenceguard.core.LeaseManager;
import io.fenceguard.core.memory.InMemoryLeaseProvider;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Which calls get the header, and that a call under a lease without one is warned about once per origin. */
class OutboundFenceTest {

    final ListAppender<ILoggingEvent> warnings = new ListAppender<>();
    final Logger logger = (Logger) LoggerFactory.getLogger(OutboundFence.class);
    final LeaseManager leases = LeaseManager.of(InMemoryLeaseProvider.create());
    final OutboundFence fence = OutboundFence.of(Destinations.of("http://localhost:8081/api"), SigningKeys.none());

    @BeforeEach
    void capture() {
        warnings.start();
        logger.addAppender(warnings);
    }

    @AfterEach
    void release() {
        logger.detachAppender(warnings);
        leases.close();
    }

    Lease acquire(String resource) {
        return leases.acquire(resource, Duration.ofSeconds(1));
    }

    @Test
    void headerGoesToConfiguredDestinationsUnderALeaseOnly() {
        URI destination = URI.create("http://127.0.0.1:8081/api/x?y=1");
        assertThat(fence.headerFor(destination)).as("no lease, no header").isEmpty();
        try (Lease lease = acquire("account:1"); LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            assertThat(fence.headerFor(destination)).contains(FenceHeader.of(lease.fence()).value());
            assertThat(fence.headerFor(URI.create("http://127.0.0.1:8081/other"))).as("outside the path").isEmpty();
        }
        assertThat(warnings.list).as("a configured origin outside its path prefix is deliberate").isEmpty();
    }

    /** What a message producer stamps: the current lease's header, for no destination in particular. */
    @Test
    void theCurrentHeaderValueIsTheInnermostLeasesAndAReleasedLeaseFailsTheSend() {
        assertThat(OutboundFence.currentHeaderValue()).as("no lease, no header").isEmpty();
        Lease lease = acquire("account:7");
        try (LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            assertThat(OutboundFence.currentHeaderValue()).contains(FenceHeader.of(lease.fence()).value());
            lease.close();
            assertThatThrownBy(OutboundFence::currentHeaderValue).as("a message would go out under a lease not held")
                    .isInstanceOf(FenceguardException.class).hasMessageContaining("already released");
        }
        assertThat(warnings.list).isEmpty();
    }

    @Test
    void callUnderALeaseToAnotherOriginIsWarnedAboutOncePerOrigin() {
        try (Lease lease = acquire("account:2"); LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            assertThat(fence.headerFor(URI.create("http://127.0.0.1:9090/a?secret=s3"))).isEmpty();
            assertThat(fence.headerFor(URI.create("http://LOCALHOST:9090/b"))).as("same origin").isEmpty();
            assertThat(fence.headerFor(URI.create("https://ledger.internal/c"))).isEmpty();
        }
        assertThat(warnings.list).hasSize(2).allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.WARN));
        assertThat(warnings.list.get(0).getFormattedMessage())
                .contains("http://localhost:9090/a", "'account:2'", "Fencing-Token", "not a token destination",
                        "http://localhost:8081/api", "fenceguard.http.client.destinations")
                .doesNotContain("secret");
        assertThat(warnings.list.get(1).getFormattedMessage()).contains("https://ledger.internal:443/c");
    }

    @Test
    void noWarningWithoutALease() {
        assertThat(fence.headerFor(URI.create("http://127.0.0.1:9091/a"))).isEmpty();
        assertThat(warnings.list).isEmpty();
    }

    @Test
    void releasedLeaseFailsTheCallBeforeItIsSent() {
        Lease lease = acquire("account:3");
        lease.close();
        try (LeaseContext.Scope scope = LeaseContext.bind(lease)) {
            assertThatThrownBy(() -> fence.headerFor(URI.create("http://localhost:8081/api")))
                    .isInstanceOf(FenceguardException.class).hasMessageContaining("already released");
        }
    }
}
