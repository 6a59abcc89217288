package io.fenceguard.docs.messaging;

import io.fenceguard.core.annotation.Fenced;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;

/** With Boot: nothing but the producer and the listener. */
class BootDeposits {

    private final KafkaTemplate<String, String> kafkaTemplate;
    private final JdbcTemplate jdbc;

    BootDeposits(KafkaTemplate<String, String> kafkaTemplate, JdbcTemplate jdbc) {
        this.kafkaTemplate = kafkaTemplate;
        this.jdbc = jdbc;
    }

    // tag::messaging-boot[]
    @Fenced("'account:' + #id")
    void deposit(String id, long amount) {
        kafkaTemplate.send("deposits", id, String.valueOf(amount));   // Boot's KafkaTemplate stamps the fence
    }

    @KafkaListener(topics = "deposits")                               // Boot's factory admits, binds, dead-letters
    void onDeposit(String amount) {
        jdbc.update("UPDATE balances SET total = total + ?", Long.parseLong(amount));   // fenced with the producer's token
    }
    // end::messaging-boot[]
}
