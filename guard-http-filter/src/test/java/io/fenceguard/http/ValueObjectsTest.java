package io.fenceguard.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValueObjectsTest {

    static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    @Test
    void headerRoundTripsSignedAndUnsigned() {
        ResourceName resource = ResourceName.of("account:42");
        FenceHeader unsigned = FenceHeader.of(resource, FencingToken.of(Long.MAX_VALUE));
        assertThat(unsigned.value()).isEqualTo("v1;r=account:42;t=9223372036854775807");
        assertThat(FenceHeader.parse(unsigned.value())).isEqualTo(unsigned);

        FenceHeader signed = SigningKeys.of(Map.of("k1", SECRET), "k1").header(resource, FencingToken.of(7));
        assertThat(signed.value()).matches("v1;r=account:42;t=7;k=k1;s=[A-Za-z0-9_-]{43}");
        FenceHeader parsed = FenceHeader.parse(signed.value());
        assertThat(parsed.resource()).isEqualTo(resource);
        assertThat(parsed.token()).isEqualTo(FencingToken.of(7));
        assertThat(parsed.keyId()).contains("k1");
    }

    @Test
    void rotationAcceptsEveryListedKeyAndRefusesOthers() {
        byte[] other = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);
        SigningKeys oldSigner = SigningKeys.of(Map.of("k1", SECRET), "k1");
        SigningKeys newSigner = SigningKeys.of(Map.of("k2", other), "k2");
        SigningKeys verifier = SigningKeys.of(Map.of("k1", SECRET, "k2", other), null);
        FenceHeader fromOld = oldSigner.header(ResourceName.of("a"), FencingToken.of(1));
        FenceHeader fromNew = newSigner.header(ResourceName.of("a"), FencingToken.of(1));
        verifier.verify(fromOld);
        verifier.verify(fromNew);
        assertThatThrownBy(() -> oldSigner.verify(fromNew)).isInstanceOf(FenceHeaderException.class)
                .hasMessageContaining("unknown key 'k2'");
        assertThatThrownBy(() -> verifier.verify(FenceHeader.of(ResourceName.of("a"), FencingToken.of(1))))
                .hasMessageContaining("must be signed");
        SigningKeys.none().verify(FenceHeader.of(ResourceName.of("a"), FencingToken.of(1)));
    }

    @Test
    void keysAreValidated() {
        assertThatThrownBy(() -> SigningKeys.of(Map.of("k1", new byte[31]), "k1")).hasMessageContaining("at least 32");
        assertThatThrownBy(() -> SigningKeys.of(Map.of("k 1", SECRET), null)).hasMessageContaining("key id");
        assertThatThrownBy(() -> SigningKeys.of(Map.of("k1", SECRET), "k2")).hasMessageContaining("not among");
    }

    @Test
    void pathTemplatesMatchExactly() {
        PathTemplate template = PathTemplate.of("/accounts/{id}/**");
        assertThat(template.match("/accounts/42")).contains(Map.of("id", "42"));
        assertThat(template.match("/accounts/42/x/y")).contains(Map.of("id", "42"));
        assertThat(template.match("/accounts")).isEmpty();
        assertThat(template.match("/accounts//x")).isEmpty();
        assertThat(PathTemplate.of("/a/*").match("/a/b/")).isEmpty();
        assertThatThrownBy(() -> PathTemplate.of("/a/**/b")).isInstanceOf(IllegalArgumentException.class);
        assertThat(ResourceTemplate.of("account:{id}").resolve(Map.of("id", "42"))).contains(ResourceName.of("account:42"));
        assertThatThrownBy(() -> ResourceTemplate.of("account:{id}").resolve(Map.of("id", "4 2")))
                .isInstanceOf(FenceHeaderException.class);
    }

    @Test
    void destinationsMatchOriginAndPathPrefix() {
        Destinations destinations = Destinations.of("http://Svc.internal:8080/api", "https://ledger");
        assertThat(destinations.allows(URI.create("http://svc.internal:8080/api/x"))).isTrue();
        assertThat(destinations.allows(URI.create("http://svc.internal:8080/api"))).isTrue();
        assertThat(destinations.allows(URI.create("http://svc.internal:8080/apix"))).isFalse();
        assertThat(destinations.allows(URI.create("https://svc.internal:8080/api/x"))).isFalse();
        assertThat(destinations.allows(URI.create("http://svc.internal/api/x"))).isFalse();
        assertThat(destinations.allows(URI.create("https://ledger:443/anything"))).isTrue();
        assertThat(destinations.allows(URI.create("https://ledger.evil/anything"))).isFalse();
        assertThat(Destinations.none().allows(URI.create("https://ledger/"))).isFalse();
        assertThatThrownBy(() -> Destinations.of("ledger:80")).isInstanceOf(IllegalArgumentException.class);
    }
}
