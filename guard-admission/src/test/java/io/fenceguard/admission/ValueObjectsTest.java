package io.fenceguard.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.Fence;
import io.fenceguard.core.FencingToken;
import io.fenceguard.core.ResourceName;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValueObjectsTest {

    static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    static Fence fence(String resource, long token) {
        return new Fence(ResourceName.of(resource), FencingToken.of(token));
    }

    @Test
    void headerIsTheWireFormOfAFenceSignedOrNot() {
        Fence fence = fence("account:42", Long.MAX_VALUE);
        FenceHeader unsigned = FenceHeader.of(fence);
        assertThat(unsigned.value()).isEqualTo("v1;r=account:42;t=9223372036854775807");
        assertThat(FenceHeader.parse(unsigned.value())).isEqualTo(unsigned);
        assertThat(FenceHeader.parse(unsigned.value()).fence()).isEqualTo(fence);
        assertThat(unsigned.isSigned()).isFalse();

        FenceHeader signed = SigningKeys.of(Map.of("k1", SECRET), "k1").header(fence("account:42", 7));
        assertThat(signed.value()).matches("v1;r=account:42;t=7;k=k1;s=[A-Za-z0-9_-]{43}");
        FenceHeader parsed = FenceHeader.parse(signed.value());
        assertThat(parsed.fence()).isEqualTo(fence("account:42", 7));
        assertThat(parsed.keyId()).contains("k1");
        assertThat(parsed.isSigned()).isTrue();
        assertThat(parsed).isEqualTo(signed);
    }

    @Test
    void admissionHoldsThePresentedFenceTheHighWaterTokenAndTheOutcome() {
        Fence presented = fence("account:1", 7);
        assertThat(Admission.of(presented, null))
                .isEqualTo(new Admission(presented, FencingToken.of(7), Admission.Outcome.CLAIMED, new Admission.Replaced(null)));
        assertThat(Admission.of(presented, FencingToken.of(6)).outcome()).isEqualTo(Admission.Outcome.CLAIMED);
        assertThat(Admission.of(presented, FencingToken.of(7)).outcome()).isEqualTo(Admission.Outcome.CONTINUED);
        Admission stale = Admission.of(presented, FencingToken.of(9));
        assertThat(stale.admitted()).isFalse();
        assertThat(stale.presented()).isEqualTo(presented);
        assertThat(stale.highWater()).isEqualTo(FencingToken.of(9));
    }

    @Test
    void rotationAcceptsEveryListedKeyAndRefusesOthers() {
        byte[] other = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);
        SigningKeys oldSigner = SigningKeys.of(Map.of("k1", SECRET), "k1");
        SigningKeys newSigner = SigningKeys.of(Map.of("k2", other), "k2");
        SigningKeys verifier = SigningKeys.of(Map.of("k1", SECRET, "k2", other), null);
        FenceHeader fromOld = oldSigner.header(fence("a", 1));
        FenceHeader fromNew = newSigner.header(fence("a", 1));
        verifier.verify(fromOld);
        verifier.verify(fromNew);
        assertThatThrownBy(() -> oldSigner.verify(fromNew)).isInstanceOf(FenceHeaderException.class)
                .hasMessageContaining("unknown key 'k2'")
                .satisfies(e -> assertThat(((FenceHeaderException) e).kind()).isEqualTo(FenceHeaderException.Kind.UNTRUSTED));
        assertThatThrownBy(() -> verifier.verify(FenceHeader.of(fence("a", 1))))
                .hasMessageContaining("must be signed");
        SigningKeys.none().verify(FenceHeader.of(fence("a", 1)));
        SigningKeys migrating = verifier.acceptingUnsigned();
        migrating.verify(FenceHeader.of(fence("a", 1)));
        migrating.verify(fromNew);
        assertThatThrownBy(() -> migrating.verify(SigningKeys.of(Map.of("k2", SECRET), "k2").header(fence("a", 1))))
                .as("a signed header is still verified").hasMessageContaining("signature does not match");
        assertThat(verifier.header(fence("a", 1)).isSigned()).as("no active key: verify only").isFalse();
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
        assertThat(ResourceTemplate.of("ledger:{org}/entry-{id}.v1").resolve(Map.of("org", "acme", "id", "7")))
                .contains(ResourceName.of("ledger:acme/entry-7.v1"));
        assertThat(ResourceTemplate.of("{a}{b}").resolve(Map.of("a", "x", "b", "y"))).contains(ResourceName.of("xy"));
        assertThat(ResourceTemplate.of("config:all").resolve(Map.of("id", "1"))).contains(ResourceName.of("config:all"));
        assertThatThrownBy(() -> ResourceTemplate.of("account:{id}").resolve(Map.of("id", "$1")))
                .isInstanceOf(FenceHeaderException.class);
        assertThatThrownBy(() -> ResourceTemplate.of("ledger:{org}/{id}").resolve(Map.of("org", "acme")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("uses {id}");
        assertThat(ResourceTemplate.of("").resolve(Map.of())).isEmpty();
    }

    @Test
    void problemsShareOneTypeScheme() {
        Admission stale = Admission.of(fence("account:1", 4), FencingToken.of(5));
        for (Problem problem : new Problem[] {Problem.stale(stale), Problem.missing(null, "Fencing-Token"),
                Problem.malformed(null, "x"), Problem.untrusted(fence("a", 1), "x"), Problem.unavailable(fence("a", 1)),
                Problem.notAdmitted()}) {
            assertThat(problem.type()).startsWith(Problem.TYPE_PREFIX).matches("urn:fenceguard:[a-z-]+");
            assertThat(problem.toJson("/p")).contains("\"type\":\"" + problem.type() + "\"");
        }
        assertThat(Problem.stale(stale).toJson("/accounts/1")).contains("\"token\":\"4\"", "\"highWater\":\"5\"");
    }
}
