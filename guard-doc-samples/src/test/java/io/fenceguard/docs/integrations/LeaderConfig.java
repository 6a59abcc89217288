package io.fenceguard.docs.integrations;

import io.fenceguard.core.LeaseManager;
import io.fenceguard.spring.integration.FenceguardLockRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.jdbc.core.JdbcTemplate;

// tag::lock-registry[]
@Configuration
class LeaderConfig {
    @Bean
    FenceguardLockRegistry lockRegistry(LeaseManager leaseManager) {
        return FenceguardLockRegistry.of(leaseManager);
    }

    @Bean
    LockRegistryLeaderInitiator leaderInitiator(FenceguardLockRegistry locks) {
        return new LockRegistryLeaderInitiator(locks, new DefaultCandidate("node-1", "ledger"));
    }
}

// or anywhere: the work runs under the lock's lease
class OrderRenumbering {
    void run(FenceguardLockRegistry locks, JdbcTemplate jdbc) throws InterruptedException {
        locks.executeLocked("orders", () -> jdbc.update("UPDATE orders SET seq = seq + 1"));
    }
}
// end::lock-registry[]
