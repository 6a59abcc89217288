package io.fenceguard.docs.integrations;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.shedlock.FenceguardLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

// tag::shedlock[]
@Configuration
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "10m")
class SchedulingConfig {
    @Bean
    FenceguardLockProvider lockProvider(LeaseManager leaseManager) {   // closed by Spring on shutdown
        return new FenceguardLockProvider(leaseManager);                // locks on "shedlock:<name>"
    }
}

@Component
class ReportJob {
    private final JdbcClient jdbcClient;

    ReportJob(JdbcClient jdbcClient) {
        this.jdbcClient = jdbcClient;
    }

    @Scheduled(cron = "0 */5 * * * *")
    @SchedulerLock(name = "nightly-report", lockAtLeastFor = "1m")
    void report() {
        jdbcClient.sql("UPDATE reports SET generated_at = now() WHERE id = ?").param(1).update();   // fenced with the token
    }
}
// end::shedlock[]
