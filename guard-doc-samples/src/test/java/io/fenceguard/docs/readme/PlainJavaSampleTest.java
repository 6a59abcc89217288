package io.fenceguard.docs.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.docs.SampleDatabase;
import io.fenceguard.jdbc.FencedDataSource;
import io.fenceguard.jdbc.FencingConfig;
import io.fenceguard.jdbc.StaleTokenException;
import io.fenceguard.redis.RedisLeaseProvider;
import io.fenceguard.redis.redisson.RedissonScriptClient;
import io.fenceguard.test.support.TestRedisson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** The README's plain-Java sample on the test Redis and PostgreSQL: it writes with its token, and is fenced. */
class PlainJavaSampleTest {

    static int depositFive(RedissonClient redisson, DataSource pool) throws SQLException {
        // tag::readme-plain-java[]
        LeaseManager guard = LeaseManager.of(RedisLeaseProvider.of(RedissonScriptClient.of(redisson)));
        DataSource fenced = FencedDataSource.wrap(pool, FencingConfig.builder().fence("accounts").build());
        guard.callWithLease("account:42", Duration.ofSeconds(5), lease -> {
            try (Connection connection = fenced.getConnection();
                 PreparedStatement update = connection.prepareStatement(
                         "UPDATE accounts SET balance = balance + ? WHERE id = ?")) {
                update.setLong(1, 5);
                update.setString(2, "42");
                return update.executeUpdate();                 // the row's current_token becomes lease.token()
            }
        });
        // end::readme-plain-java[]
        guard.close();
        guard.provider().close();
        return 1;
    }

    @Test
    void writesWithItsTokenAndIsRefusedBehindANewerOne() throws Exception {
        try (SampleDatabase db = SampleDatabase.create()) {
            depositFive(TestRedisson.shared(), db.pool());
            assertThat(db.queryLong("SELECT balance FROM accounts WHERE id = '42'")).isEqualTo(105);
            long token = db.queryLong("SELECT current_token FROM accounts WHERE id = '42'");
            assertThat(token).isPositive();

            // a newer holder has written: the sample's next write carries an older token
            db.execute("UPDATE accounts SET current_token = " + Long.MAX_VALUE / 2 + " WHERE id = '42'");
            assertThatThrownBy(() -> depositFive(TestRedisson.shared(), db.pool()))
                    .isInstanceOf(StaleTokenException.class);
            assertThat(db.queryLong("SELECT balance FROM accounts WHERE id = '42'")).isEqualTo(105);
        }
    }
}
