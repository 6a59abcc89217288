package example.wallets;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;
import redis.clients.jedis.JedisPool;

/**
 * An ordinary Boot application on MariaDB without Flyway: its tables from {@code schema.sql}, wallets through
 * JdbcTemplate, an audit call through RestClient, leases on Redis through its Jedis pool. With
 * {@code --self-check} it checks itself once started and exits 0, or 1 with the reason.
 */
@SpringBootApplication
public class WalletsApplication {

    private static final String DATABASE = "consumer_no_flyway";

    public static void main(String[] args) {
        boolean selfCheck = Arrays.asList(args).contains("--self-check");
        SpringApplication application = new SpringApplication(WalletsApplication.class);
        Map<String, Object> defaults = new HashMap<>();
        String serverUrl = System.getenv("GUARD_TEST_MARIADB_URL");
        if (serverUrl != null) {
            defaults.put("spring.datasource.url", freshDatabase(serverUrl));
        }
        if (selfCheck) {
            // the audit endpoint is this application's own, on a port free on this machine
            defaults.put("server.port", freePort());
        }
        application.setDefaultProperties(defaults);
        ConfigurableApplicationContext context;
        try {
            context = application.run(args);
        } catch (RuntimeException e) {
            System.err.println("SELF-CHECK FAILED: the application did not start: " + e);
            System.exit(1);
            return;
        }
        if (selfCheck) {
            int status = SelfCheck.run(() -> context.getBean(WalletChecks.class).run());
            System.exit(SpringApplication.exit(context, () -> status));
        }
    }

    /** The application's Jedis pool: leases go through it. */
    @Bean(destroyMethod = "close")
    JedisPool jedisPool(@Value("${GUARD_TEST_REDIS_URL}") String redisUrl) {
        return new JedisPool(URI.create(redisUrl));
    }

    @Bean
    RestClient auditClient(RestClient.Builder builder, Environment environment) {
        return builder.baseUrl("http://127.0.0.1:" + environment.getRequiredProperty("server.port")).build();
    }

    /**
     * A database of this application's own on the build's server, empty at every start: nothing of the guard's
     * is there unless fenceguard creates it.
     */
    private static String freshDatabase(String serverUrl) {
        String user = System.getenv().getOrDefault("GUARD_TEST_MARIADB_USER", "root");
        String password = System.getenv().getOrDefault("GUARD_TEST_MARIADB_PASSWORD", "");
        try (Connection connection = DriverManager.getConnection(serverUrl, user, password);
             Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + DATABASE);
            statement.execute("CREATE DATABASE " + DATABASE);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot make database " + DATABASE + " on " + serverUrl, e);
        }
        return serverUrl.replaceFirst("^(jdbc:mariadb://[^/?]+)(/[^?]*)?", "$1/" + DATABASE);
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port", e);
        }
    }
}
