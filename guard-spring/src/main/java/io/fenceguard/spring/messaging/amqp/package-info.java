/**
 * Fencing advice on Rabbit listener container factories (spring-rabbit and fenceguard-messaging, optional).
 */
package io.fenceguard.spring.messaging.amqp;
