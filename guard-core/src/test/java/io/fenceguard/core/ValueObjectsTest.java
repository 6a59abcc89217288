package io.fenceguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.testsupport.TestServers;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

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
    void invalidNameNeverReachesRedis() {
        RedissonClient client = RedisClients.single(TestServers.redis().uri());
        try (LeaseManager manager = LeaseManager.of(client, RedisClients.fast().build())) {
            assertThatThrownBy(() -> manager.acquire("a{b}", Duration.ofSeconds(1)))
                    .isInstanceOf(InvalidResourceNameException.class);
            assertThat(client.getKeys().getKeysByPattern(manager.config().keyPrefix() + "*")).isEmpty();
        } finally {
            client.shutdown();
        }
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
        assertThatThrownBy(() -> LeaseConfig.builder().keyPrefix("a{").build()).hasMessageContaining("braces");
        assertThatThrownBy(() -> LeaseConfig.builder().lockDelay(Duration.ofMillis(-1)).build())
                .hasMessageContaining("lockDelay");
        assertThat(LeaseConfig.defaults().renewInterval()).isEqualTo(Duration.ofSeconds(10));
    }
}
