package io.fenceguard.jdbc;

import static io.fenceguard.jdbc.TestFence.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MariaDbRowFencingTest extends RowFencingContract {

    @Override
    SqlDialect dialect() {
        return SqlDialect.MARIADB;
    }

    @Override
    String joinedUpdate() {
        return "UPDATE " + table + " a JOIN " + users + " u ON a.owner = u.id"
                + " SET a.balance = a.balance + ? WHERE u.name = ?";
    }

    @Override
    String quoted(String identifier) {
        return "`" + identifier + "`";
    }

    @Test
    void backticksLimitAndOnDuplicateKeyUpdate() throws Exception {
        String limited = "UPDATE `" + table + "` SET `balance` = ? WHERE `owner` = ? ORDER BY `id` LIMIT ?";
        assertThat(as(RESOURCE, 10, () -> update(limited, 7, 1, 1))).isEqualTo(1);
        assertThat(rows()).containsExactly("1:7:10", "2:200:null", "3:300:null");
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(limited, 8, 1, 2)))
                .isInstanceOf(StaleTokenException.class);
        String upsert = "INSERT INTO " + table + " (id, owner, balance) VALUES (?, 1, ?)"
                + " ON DUPLICATE KEY UPDATE balance = VALUES(balance)";
        assertThat(as(RESOURCE, 10, () -> update(upsert, 1, 70))).isPositive();
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(upsert, 1, 80)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(as(RESOURCE, 9, () -> update(upsert, 2, 90))).isPositive();
        assertThat(rows()).containsExactly("1:70:10", "2:90:9", "3:300:null");
    }

    @Test
    void parametersInOrderByAndLimitAfterTheToken() throws Exception {
        // ORDER BY ABS(id - ?) LIMIT ?: the row nearest the parameter is written, so a wrong mapping shows
        String nearest = "UPDATE " + table + " SET balance = ? WHERE owner = ? ORDER BY ABS(id - ?) LIMIT ?";
        assertThat(as(RESOURCE, 10, () -> update(nearest, 5, 1, 2, 1))).isEqualTo(1);
        assertThat(rows()).containsExactly("1:100:null", "2:5:10", "3:300:null");
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(nearest, 6, 1, 3, 1)))
                .isInstanceOf(StaleTokenException.class);
        // the newer row 2 is outside the LIMIT: not written, no error
        assertThat(as(RESOURCE, 9, () -> update(nearest, 7, 1, 0, 1))).isEqualTo(1);
        assertThat(rows()).containsExactly("1:7:9", "2:5:10", "3:300:null");

        String newest = "DELETE FROM " + table + " WHERE owner = ? ORDER BY id DESC LIMIT ?";
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(newest, 1, 1)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(rows()).hasSize(3);
        assertThat(as(RESOURCE, 10, () -> update(newest, 1, 1))).isEqualTo(1);
        assertThat(rows()).containsExactly("1:7:9", "3:300:null");
    }

    @Test
    void onDuplicateKeyUpdateWithParametersAfterTheToken() throws Exception {
        String upsert = "INSERT INTO `" + table + "` (`id`, `owner`, `balance`) VALUES (?, 1, ?)"
                + " ON DUPLICATE KEY UPDATE `balance` = `balance` + ?, `note` = ?";
        assertThat(as(RESOURCE, 10, () -> update(upsert, 1, 0, 5, "up"))).isPositive();
        assertThat(as(RESOURCE, 10, () -> update(upsert, 7, 70, 5, "new"))).isEqualTo(1);
        assertThatThrownBy(() -> as(RESOURCE, 9, () -> update(upsert, 1, 0, 1000, "stale")))
                .isInstanceOf(StaleTokenException.class);
        assertThat(rows()).containsExactly("1:105:10", "2:200:null", "3:300:null", "7:70:10");
        assertThat(new org.springframework.jdbc.core.JdbcTemplate(raw).queryForList(
                "SELECT note FROM " + table + " WHERE id IN (1, 7) ORDER BY id", String.class))
                .containsExactly("up", null);
    }
}
