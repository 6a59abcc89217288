package io.fenceguard.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Destinations are matched by normalised origin and path prefix; a bad entry is warned about, not silent. */
class DestinationsTest {

    final ListAppender<ILoggingEvent> warnings = new ListAppender<>();
    final Logger logger = (Logger) LoggerFactory.getLogger(Destinations.class);

    @BeforeEach
    void capture() {
        warnings.start();
        logger.addAppender(warnings);
    }

    @AfterEach
    void release() {
        logger.detachAppender(warnings);
    }

    static boolean allows(Destinations destinations, String uri) {
        return destinations.allows(URI.create(uri));
    }

    @Test
    void originIsNormalised() {
        assertThat(Origin.of(URI.create("HTTP://Svc.Internal./x"))).isEqualTo(new Origin("http", "svc.internal", 80));
        assertThat(Origin.of(URI.create("https://svc"))).isEqualTo(new Origin("https", "svc", 443));
        assertThat(Origin.of(URI.create("http://svc:8080"))).isEqualTo(new Origin("http", "svc", 8080));
        for (String loopback : List.of("http://localhost:81", "http://127.0.0.1:81", "http://[::1]:81",
                "http://[0:0:0:0:0:0:0:1]:81", "http://LOCALHOST:81/a")) {
            assertThat(Origin.of(URI.create(loopback))).as(loopback).isEqualTo(new Origin("http", "localhost", 81));
        }
        assertThat(Origin.of(URI.create("http://[2001:DB8::1]:81")).host()).isEqualTo("2001:db8:0:0:0:0:0:1");
        assertThat(Origin.of(URI.create("http://[2001:db8::1]:81")).toString()).isEqualTo("http://[2001:db8:0:0:0:0:0:1]:81");
        assertThatThrownBy(() -> Origin.of(URI.create("ftp://svc"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Origin.of(URI.create("/relative"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Origin.of(URI.create("http://under_score:80/"))).hasMessageContaining("no host name");
    }

    @Test
    void localhostDestinationMatchesEveryLoopbackSpelling() {
        Destinations destinations = Destinations.of("http://localhost:8081/api");
        assertThat(allows(destinations, "http://127.0.0.1:8081/api/x")).isTrue();
        assertThat(allows(destinations, "http://[::1]:8081/api")).isTrue();
        assertThat(allows(destinations, "http://localhost:8081/api/x")).isTrue();
        assertThat(allows(destinations, "http://127.0.0.1:8082/api/x")).as("another port").isFalse();
        assertThat(allows(destinations, "https://127.0.0.1:8081/api/x")).as("another scheme").isFalse();
        assertThat(allows(destinations, "http://127.0.0.2:8081/api/x")).as("another address").isFalse();
        assertThat(allows(Destinations.of("http://127.0.0.1:8081"), "http://localhost:8081/")).isTrue();
    }

    @Test
    void defaultPortsAndPathPrefixes() {
        Destinations destinations = Destinations.of("http://Svc.internal:8080/api", "https://ledger");
        assertThat(allows(destinations, "http://svc.internal:8080/api/x")).isTrue();
        assertThat(allows(destinations, "http://svc.internal:8080/api")).isTrue();
        assertThat(allows(destinations, "http://svc.internal:8080/apix")).isFalse();
        assertThat(allows(destinations, "http://svc.internal:8080/api/../admin")).as("dot segments").isFalse();
        assertThat(allows(destinations, "https://svc.internal:8080/api/x")).isFalse();
        assertThat(allows(destinations, "http://svc.internal/api/x")).isFalse();
        assertThat(allows(destinations, "https://ledger:443/anything")).isTrue();
        assertThat(allows(destinations, "https://LEDGER./anything")).isTrue();
        assertThat(allows(destinations, "http://ledger/anything")).as("http is port 80, not 443").isFalse();
        assertThat(allows(destinations, "https://ledger.evil/anything")).isFalse();
        assertThat(allows(Destinations.none(), "https://ledger/")).isFalse();
        assertThat(warnings.list).isEmpty();
    }

    @Test
    void unparseableDestinationIsSkippedWithAWarningNamingIt() {
        Destinations destinations = Destinations.of("ledger:80", "http://ok:81", "http://bad host", "",
                "http://user@svc", "http://svc?x=1");
        assertThat(destinations.invalid()).containsExactly("ledger:80", "http://bad host", "", "http://user@svc",
                "http://svc?x=1");
        assertThat(allows(destinations, "http://ok:81/x")).isTrue();
        assertThat(warnings.list).hasSize(5).allSatisfy(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage()).startsWith("fenceguard: ignoring token destination '");
        });
        assertThat(warnings.list.get(0).getFormattedMessage()).contains("'ledger:80'", "not an absolute http(s) URL");
    }
}
