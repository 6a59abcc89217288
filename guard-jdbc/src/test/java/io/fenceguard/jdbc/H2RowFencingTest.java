package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Locale;
import org.junit.jupiter.api.Test;

class H2RowFencingTest extends RowFencingContract {

    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }

    @Override
    String joinedUpdate() {
        return "UPDATE " + table + " a SET balance = a.balance + ?"
                + " WHERE a.owner IN (SELECT u.id FROM " + users + " u WHERE u.name = ?)";
    }

    @Override
    String quoted(String identifier) {
        return "\"" + identifier.toUpperCase(Locale.ROOT) + "\"";
    }

    @Test
    void multiColumnSet() throws Exception {
        String sql = "UPDATE " + table + " SET (balance, note) = (?, ?) WHERE id = ?";
        assertThat(as(RESOURCE, 10, () -> update(sql, 111, "n", 1))).isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(sql, 99, "old", 1)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(rows()).containsExactly("1:111:10", "2:200:null", "3:300:null");
    }
}
