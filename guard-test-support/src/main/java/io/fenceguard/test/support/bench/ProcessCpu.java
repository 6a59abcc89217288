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
     * CPU time so far (user + system, from /proc) of the processes on this machine whose command starts with
     * {@code command}, such as {@code postgres}: a local server's cost per operation; -1 when /proc cannot be read.
     * A process that ends between two readings takes its time with it: {@link #localProcessesById} and
     * {@link #spent} count only what the processes alive at the second reading spent.
     */
    public static long localProcesses(String command) {
        Map<Long, Long> processes = localProcessesById(command);
        return processes == null ? -1 : processes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** CPU time so far of each process whose command starts with {@code command}, by process id; null without /proc. */
    public static Map<Long, Long> localProcessesById(String command) {
        java.io.File[] processes = new java.io.File("/proc").listFiles(f -> f.getName().chars().allMatch(Character::isDigit));
        if (processes == null) {
            return null;
        }
        Map<Long, Long> cpu = new HashMap<>();
        for (java.io.File process : processes) {
            try {
                String stat = java.nio.file.Files.readString(process.toPath().resolve("stat"));
                int close = stat.lastIndexOf(')');
                if (!stat.substring(stat.indexOf('(') + 1, close).startsWith(command)) {
                    continue;
                }
                String[] fields = stat.substring(close + 2).split(" ");
                // utime + stime in ticks; USER_HZ is 100 on Linux
                cpu.put(Long.parseLong(process.getName()),
                        (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L);
            } catch (java.io.IOException | RuntimeException e) {
                // gone meanwhile, or not readable
            }
        }
        return cpu;
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
     * CPU the threads (or processes) of {@code after} spent since {@code before} (one new since then: all of its time).
     * One that ended in between is not counted: its last share is left with the rest of the process.
     */
    public static long spent(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (Map.Entry<Long, Long> thread : after.entrySet()) {
            sum += Math.max(0, thread.getValue() - before.getOrDefault(thread.getKey(), 0L));
        }
        return sum;
    }

    /**
     * A Redis server's CPU time so far from the text of its {@code INFO cpu} (user + system, as
     * {@code used_cpu_user} and {@code used_cpu_sys}); -1 when the text lacks either.
     */
    public static long redisServerNanos(String infoCpu) {
        double seconds = 0;
        int found = 0;
        for (String line : infoCpu.split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
                found++;
            }
        }
        return found == 2 ? (long) (seconds * 1e9) : -1;
    }
}
