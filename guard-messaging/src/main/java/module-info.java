/** Fencing of messages: the token in a header, checked where the message is consumed (Kafka and RabbitMQ optional). */
module io.fenceguard.messaging {
    requires transitive io.fenceguard.core;
    requires transitive io.fenceguard.admission;
    requires transitive java.sql;
    requires org.slf4j;

    requires static spring.core;
    requires static spring.aop;
    requires static spring.kafka;
    requires static kafka.clients;
    requires static spring.amqp;
    requires static spring.rabbit;

    exports io.fenceguard.messaging;
    exports io.fenceguard.messaging.amqp;
    exports io.fenceguard.messaging.kafka;
    exports io.fenceguard.messaging.outbox;
    exports io.fenceguard.messaging.outbox.amqp;
    exports io.fenceguard.messaging.outbox.kafka;
}
