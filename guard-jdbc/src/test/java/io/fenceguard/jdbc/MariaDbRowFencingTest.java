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
}
