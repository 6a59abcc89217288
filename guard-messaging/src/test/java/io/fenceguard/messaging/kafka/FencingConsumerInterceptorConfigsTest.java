package io.fenceguard.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fenceguard.admission.InMemoryHighWaterStore;
import io.fenceguard.messaging.MessageAdmission;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.junit.jupiter.api.Test;

/** The consumer configuration that admits each poll at once keeps the interceptors a consumer already has. */
class FencingConsumerInterceptorConfigsTest {

    private final MessageAdmission admission = MessageAdmission.of(InMemoryHighWaterStore.create());

    /** Stands for an application's own interceptor. */
    public static class Audit implements ConsumerInterceptor<Object, Object> {
        @Override
        public org.apache.kafka.clients.consumer.ConsumerRecords<Object, Object> onConsume(
                org.apache.kafka.clients.consumer.ConsumerRecords<Object, Object> records) {
            return records;
        }

        @Override
        public void onCommit(Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> offsets) {
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    private List<Object> interceptors(Object configured) {
        Map<String, Object> configs = FencingConsumerInterceptor.configs(admission, configured);
        assertThat(configs.get(FencingConsumerInterceptor.ADMISSION_CONFIG)).isSameAs(admission);
        @SuppressWarnings("unchecked")
        List<Object> classes = (List<Object>) configs.get(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG);
        return classes;
    }

    @Test
    void theApplicationsInterceptorsStayFirstInEveryFormKafkaTakes() {
        assertThat(interceptors(null)).containsExactly(FencingConsumerInterceptor.class);
        assertThat(interceptors(Audit.class)).containsExactly(Audit.class, FencingConsumerInterceptor.class);
        assertThat(interceptors(Audit.class.getName() + ", ")).containsExactly(Audit.class.getName(),
                FencingConsumerInterceptor.class);
        assertThat(interceptors(List.of(Audit.class.getName(), Audit.class)))
                .containsExactly(Audit.class.getName(), Audit.class, FencingConsumerInterceptor.class);
    }

    @Test
    void listedOnceOnly() {
        assertThat(interceptors(FencingConsumerInterceptor.class.getName())).containsExactly(
                FencingConsumerInterceptor.class.getName());
        assertThat(interceptors(List.of(FencingConsumerInterceptor.class))).containsExactly(FencingConsumerInterceptor.class);
    }

    @Test
    void aConsumerWithoutTheAdmissionIsRefusedNamingTheEntry() {
        assertThatThrownBy(() -> new FencingConsumerInterceptor<>().configure(Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(FencingConsumerInterceptor.ADMISSION_CONFIG);
    }
}
