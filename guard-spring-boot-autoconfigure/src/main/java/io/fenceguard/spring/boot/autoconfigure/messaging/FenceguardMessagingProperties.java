package io.fenceguard.spring.boot.autoconfigure.messaging;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of fenceguard's message fencing ({@code fenceguard.messaging.*}). */
@ConfigurationProperties(FenceguardMessagingProperties.PREFIX)
public class FenceguardMessagingProperties {

    public static final String PREFIX = "fenceguard.messaging";

    private final Kafka kafka = new Kafka();
    private final Rabbit rabbit = new Rabbit();

    public Kafka getKafka() {
        return kafka;
    }

    public Rabbit getRabbit() {
        return rabbit;
    }

    public static class Kafka {

        /**
         * Whether KafkaTemplates put the current lease's fence on records and Boot's listener container
         * factory admits only records with a current fence.
         */
        private boolean enabled = true;

        /**
         * Suffix of the dead-letter topic that refused records go to (same partition), with the reason in
         * the fenceguard-refusal headers; Spring Kafka's default.
         */
        private String deadLetterTopicSuffix = "-dlt";

        /**
         * Whether Boot's consumers admit each poll with one call of the high-water store (one round trip on a
         * shared store) before its first record runs, instead of one call per record; decisions are the same as
         * record by record, in the poll's order.
         */
        private boolean admitPerPoll = true;

        public boolean isEnabled() {
            return enabled;
        }

        public boolean isAdmitPerPoll() {
            return admitPerPoll;
        }

        public void setAdmitPerPoll(boolean admitPerPoll) {
            this.admitPerPoll = admitPerPoll;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getDeadLetterTopicSuffix() {
            return deadLetterTopicSuffix;
        }

        public void setDeadLetterTopicSuffix(String deadLetterTopicSuffix) {
            this.deadLetterTopicSuffix = deadLetterTopicSuffix;
        }
    }

    public static class Rabbit {

        /**
         * Whether RabbitTemplates put the current lease's fence on messages and Rabbit listener container
         * factories admit only messages with a current fence.
         */
        private boolean enabled = true;

        /**
         * Exchange that refused messages are republished to (under their routing key, with the reason in
         * the fenceguard-refusal headers). Empty: they are rejected without requeue, so the queue's own
         * dead-letter exchange (x-dead-letter-exchange) receives them, without the reason.
         */
        private String deadLetterExchange = "";

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getDeadLetterExchange() {
            return deadLetterExchange;
        }

        public void setDeadLetterExchange(String deadLetterExchange) {
            this.deadLetterExchange = deadLetterExchange;
        }
    }
}
