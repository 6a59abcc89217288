package io.fenceguard.consumer;

import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.web.client.RestClient;

/** An ordinary application: its own pool as a bean, a lazy proxy over it as the DataSource everyone uses. */
@SpringBootApplication
public class ConsumerApplication {

    public static void main(String[] args) {
        SpringApplication.run(ConsumerApplication.class, args);
    }

    @Bean
    HikariDataSource physicalDataSource(DataSourceProperties properties) {
        return properties.initializeDataSourceBuilder().type(HikariDataSource.class).build();
    }

    @Bean
    @Primary
    DataSource dataSource(HikariDataSource physicalDataSource) {
        return new LazyConnectionDataSourceProxy(physicalDataSource);
    }

    @Bean
    RestClient auditClient(RestClient.Builder builder, @Value("${consumer.audit-url}") String auditUrl) {
        return builder.baseUrl(auditUrl).build();
    }
}
