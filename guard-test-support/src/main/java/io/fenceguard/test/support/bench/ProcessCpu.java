package io.fenceguard.test.support.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/** CPU time of this whole JVM, every thread included: a benchmark's client cost per operation. */
public final class ProcessCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ProcessCpu() {
    }

    /** User + system CPU time of this process so far, in nanoseconds. */
    public static long nanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * CPU time so far of each live thread whose name {@code names} accepts, by thread id: read before and after a
     * measurement ({@link #spent}), it tells a load driver's share of the process CPU from the server's when both run
     * in one JVM.
     */
    public static Map<Long, Long> threads(Predicate<String> names) {
        Map<Long, Long> cpu = new HashMap<>();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info != null && names.test(info.getThreadName())) {
                long nanos = THREADS.getThreadCpuTime(info.getThreadId());
                if (nanos >= 0) {
                    cpu.put(info.getThreadId(), nanos);
                }
            }
        }
        return cpu;
    }

    /**
     * CPU the threads of {@code after} spent since {@code before} (a thread new since then: all of its time). A
     * thread that ended in between is not counted: its last share is left with the rest of the process.
     */
    public static long spent(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (Map.Entry<Long, Long> thread : after.entrySet()) {
            sum += Math.max(0, thread.getValue() - before.getOrDefault(thread.getKey(), 0L));
        }
        return sum;
    }
}
