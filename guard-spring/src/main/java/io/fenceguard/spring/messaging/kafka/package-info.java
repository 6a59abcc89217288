/**
 * Fences on the records of KafkaTemplate beans (spring-kafka and fenceguard-messaging, optional).
 */
package io.fenceguard.spring.messaging.kafka;
