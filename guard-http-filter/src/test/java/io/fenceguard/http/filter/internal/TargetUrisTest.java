package io.fenceguard.http.filter.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetUrisTest {

    @Test
    void aRepeatedTextGetsTheUriOfThatText() {
        TargetUris uris = new TargetUris();
        URI first = uris.of("http://127.0.0.1:8080/accounts/42?x=1");
        URI again = uris.of(new String("http://127.0.0.1:8080/accounts/42?x=1"));
        assertThat(again).isSameAs(first).isEqualTo(URI.create("http://127.0.0.1:8080/accounts/42?x=1"));
        assertThat(again.toString()).isEqualTo("http://127.0.0.1:8080/accounts/42?x=1");
    }

    @Test
    void everyTextGetsItsOwnUriWhateverSharesItsSlot() {
        TargetUris uris = new TargetUris();
        // More texts than slots: many share one, each still answered with the URI of its own text.
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            texts.add("https://ledger.internal/entries/" + i + (i % 3 == 0 ? "?page=" + i : ""));
        }
        for (int round = 0; round < 2; round++) {
            for (String text : texts) {
                URI uri = uris.of(text);
                assertThat(uri.toString()).isEqualTo(text);
                assertThat(uri).isEqualTo(URI.create(text));
            }
        }
    }

    @Test
    void aTextThatIsNoUriIsRefusedAsUriCreateRefusesIt() {
        TargetUris uris = new TargetUris();
        assertThatThrownBy(() -> uris.of("http://host/a b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> uris.of("http://host/a b")).isInstanceOf(IllegalArgumentException.class);
    }
}
