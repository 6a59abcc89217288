package io.fenceguard.test.support.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The Redis server's CPU time read from the text of {@code INFO cpu}, as Redis 7 writes it. */
class ProcessCpuTest {

    @Test
    void userAndSystemTimeAreAddedUp() {
        String info = "# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500000\r\nused_cpu_sys_children:9.000000\r\n"
                + "used_cpu_user_children:9.000000\r\nused_cpu_sys_main_thread:1.000000\r\n";
        assertThat(ProcessCpu.redisServerNanos(info)).isEqualTo(3_750_000_000L);
    }

    @Test
    void aTextWithoutBothIsNotRead() {
        assertThat(ProcessCpu.redisServerNanos("# CPU\nused_cpu_sys:1.0\n")).isEqualTo(-1);
        assertThat(ProcessCpu.redisServerNanos("")).isEqualTo(-1);
    }
}
