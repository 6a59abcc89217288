package io.fenceguard.docs.messaging;

import io.fenceguard.core.annotation.Fenced;
import io.fenceguard.admission.HighWaterStore;
import io.fenceguard.messaging.MessageAdmission;
import io.fenceguard.messaging.kafka.FencingProducerInterceptor;
import io.fenceguard.messaging.kafka.FencingRecordInterceptor;
import io.fenceguard.messaging.kafka.KafkaFencing;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.stereotype.Component;

// tag::kafka[]
@Configuration
class KafkaFencingConfig {
    @Bean
    KafkaTemplate<String, String> kafkaTemplate(ProducerFactory<String, String> producers) {
        KafkaTemplate<String, String> template = new KafkaTemplate<>(producers);
        template.setProducerInterceptor(new FencingProducerInterceptor<>());   // stamps the current lease's fence
        return template;
    }

    @Bean
    ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(
            ConsumerFactory<String, String> consumers, KafkaTemplate<String, String> template, HighWaterStore marks) {
        var factory = new ConcurrentKafkaListenerContainerFactory<String, String>();
        factory.setConsumerFactory(consumers);
        factory.setRecordInterceptor(new FencingRecordInterceptor<>(MessageAdmission.of(marks)));
        factory.setCommonErrorHandler(KafkaFencing.errorHandler(template));   // refused → <topic>-dlt, not retried
        return factory;
    }
}

@Component
class Deposits {
    private final KafkaTemplate<String, String> kafkaTemplate;
    private final JdbcTemplate jdbc;

    Deposits(KafkaTemplate<String, String> kafkaTemplate, JdbcTemplate jdbc) {
        this.kafkaTemplate = kafkaTemplate;
        this.jdbc = jdbc;
    }

    @Fenced("'account:' + #id")
    void deposit(String id, long amount) {
        kafkaTemplate.send("deposits", id, String.valueOf(amount));            // carries account:<id>'s token
    }

    @KafkaListener(topics = "deposits")
    void onDeposit(String amount) {
        jdbc.update("UPDATE balances SET total = total + ?", Long.parseLong(amount));   // fenced with the producer's token
    }
}
// end::kafka[]
