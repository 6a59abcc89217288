package io.fenceguard.example.reactive;

import javax.sql.DataSource;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A small JDBC pool next to R2DBC (Boot creates none when R2DBC is configured): it runs the migrations at
 * start-up (the application's Flyway, then the guard's) and keeps the fencing filter's high-water marks
 * ({@code fenceguard.http.store.type=jdbc}; the WebFlux filter asks it on boundedElastic, never on the
 * event loop). The requests' own reads and writes go through R2DBC.
 */
@Configuration(proxyBeanMethods = false)
public class JdbcConfiguration {

    @Bean
    DataSource dataSource(@Value("${spring.datasource.url}") String url,
            @Value("${spring.datasource.username:}") String username,
            @Value("${spring.datasource.password:}") String password) {
        return DataSourceBuilder.create().url(url).username(username).password(password).build();
    }
}
