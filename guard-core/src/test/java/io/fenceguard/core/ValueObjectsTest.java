package io.fenceguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.memory.InMemoryLeaseProvider;
import io.fenceguard.core.spi.Grant;
import io.fenceguard.core.spi.LeaseProvider;
import io.fenceguard.core.spi.LeaseRequest;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ValueObjectsTest {

    @ParameterizedTest
    @ValueSource(strings = {"account:42", "a", "tenant-7/order_9.v2", "user@example.com#1"})
    void acceptsOrdinaryResourceNames(String name) {
        assertThat(ResourceName.of(name).value()).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "account 42", "a{b}", "slot}", "tab\there", "line\nbreak", "ümlaut", "semi;colon",
            "quote'", "percent%", "star*"})
    void rejectsOddResourceNamesClearly(String name) {
        assertThatThrownBy(() -> ResourceName.of(name))
                .isInstanceOf(InvalidResourceNameException.class)
                .hasMessageStartingWith("invalid resource name");
    }

    @Test
    void rejectsNullAndOverlongNames() {
        assertThatThrownBy(() -> ResourceName.of(null)).isInstanceOf(InvalidResourceNameException.class);
        assertThatThrownBy(() -> ResourceName.of("x".repeat(201)))
                .isInstanceOf(InvalidResourceNameException.class).hasMessageContaining("201");
        assertThat(ResourceName.of("x".repeat(200)).value()).hasSize(200);
    }

    @Test
    void invalidNameNeverReachesTheStore() {
        AtomicInteger calls = new AtomicInteger();
        LeaseProvider memory = InMemoryLeaseProvider.create();
        LeaseProvider counting = new LeaseProvider() {
            @Override
            public Grant acquire(LeaseRequest request, Duration wait) {
                calls.incrementAndGet();
                return memory.acquire(request, wait);
            }

            @Override
            public CompletionStage<Boolean> renew(LeaseRequest request, Grant grant) {
                return memory.renew(request, grant);
            }

            @Override
            public boolean release(LeaseRequest request, Grant grant) {
                return memory.release(request, grant);
            }
        };
        try (LeaseManager manager = LeaseManager.of(counting)) {
            assertThatThrownBy(() -> manager.acquire("a{b}", Duration.ofSeconds(1)))
                    .isInstanceOf(InvalidResourceNameException.class);
            assertThat(calls).hasValue(0);
            manager.acquire("a:b", Duration.ZERO).close();
            assertThat(calls).hasValue(1);
        }
    }

    @Test
    void aResourceNameAllowsExactlyItsDocumentedCharacters() {
        java.util.regex.Pattern documented = java.util.regex.Pattern.compile("[A-Za-z0-9:._\\-/@#]+");
        int allowed = 0;
        for (char c = 0; c < 0x3000; c++) {
            String name = "a" + c + "b";
            boolean expected = documented.matcher(name).matches();
            allowed += expected ? 1 : 0;
            if (expected) {
                assertThat(ResourceName.of(name).value()).isEqualTo(name);
            } else {
                assertThatThrownBy(() -> ResourceName.of(name)).as("U+%04X", (int) c)
                        .isInstanceOf(InvalidResourceNameException.class);
            }
        }
        assertThat(allowed).isEqualTo(26 + 26 + 10 + 7);
    }

    @Test
    void aFenceIsAResourceAndAToken() {
        Fence fence = Fence.of("account:1", "42");
        assertThat(fence).isEqualTo(Fence.of(ResourceName.of("account:1"), FencingToken.of(42)));
        assertThat(fence.toString()).isEqualTo("account:1@42");
        assertThat(Fence.of("account:1", "43").supersedes(fence)).isTrue();
        assertThat(fence.supersedes(fence)).isFalse();
        assertThat(Fence.of("account:2", "43").supersedes(fence)).isFalse();
        assertThatThrownBy(() -> Fence.of("account 1", "42")).isInstanceOf(InvalidResourceNameException.class);
        assertThatThrownBy(() -> Fence.of("account:1", "042")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Fence(null, FencingToken.of(1))).isInstanceOf(NullPointerException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "42", "9223372036854775807"})
    void parsesTokens(String text) {
        assertThat(FencingToken.parse(text).toString()).isEqualTo(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0", "-1", "+1", "01", " 1", "1 ", "1e3", "0x10", "9223372036854775808",
            "99999999999999999999", "１２"})
    void rejectsMalformedTokens(String text) {
        assertThatThrownBy(() -> FencingToken.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tokensCompareByValue() {
        assertThat(FencingToken.of(2).isNewerThan(FencingToken.of(1))).isTrue();
        assertThat(FencingToken.of(1).isNewerThan(FencingToken.of(1))).isFalse();
        assertThat(FencingToken.of(7)).isEqualTo(FencingToken.of(7)).hasSameHashCodeAs(FencingToken.of(7));
        assertThatThrownBy(() -> FencingToken.of(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void configRejectsNonsense() {
        assertThatThrownBy(() -> LeaseConfig.builder().leaseTime(Duration.ZERO).build())
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LeaseConfig.builder().leaseTime(Duration.ofSeconds(3))
                .renewInterval(Duration.ofSeconds(3)).build()).hasMessageContaining("renewInterval");
        assertThatThrownBy(() -> LeaseConfig.builder().defaultWait(Duration.ofMillis(-1)).build())
                .hasMessageContaining("defaultWait");
        assertThatThrownBy(() -> LeaseConfig.builder().clientName("a:b").build()).hasMessageContaining("clientName");
        assertThat(LeaseConfig.defaults().renewInterval()).isEqualTo(Duration.ofSeconds(10));
    }
}
