package io.fenceguard.test.support.bench;

import java.lang.management.ManagementFactory;

/** CPU time of this whole JVM, every thread included: a benchmark's client cost per operation. */
public final class ProcessCpu {

    private ProcessCpu() {
    }

    /** User + system CPU time of this process so far, in nanoseconds. */
    public static long nanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
