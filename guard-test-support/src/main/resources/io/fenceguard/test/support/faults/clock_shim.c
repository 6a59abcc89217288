/*
 * LD_PRELOAD clock shim for fault tests: the wall clock of the process it is loaded into runs at
 * kernel time plus an offset that a test changes while the process runs.
 *
 * The offset is a native-endian signed 64-bit count of nanoseconds at the start of the file named by
 * FENCEGUARD_CLOCK_OFFSET_FILE, mapped shared and read on every call, so a write by the test is seen
 * at once. Only wall clocks move (CLOCK_REALTIME and its variants, gettimeofday, time); monotonic and
 * CPU clocks are left alone, as a real clock step leaves them.
 *
 * Every call goes to the kernel through syscall(2): no dlsym, no malloc, nothing that could re-enter
 * an allocator that is still starting (libfaketime hangs redis-server inside jemalloc's start-up).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* gettimeofday(NULL, tz) is legal although glibc declares the argument nonnull. */
#pragma GCC diagnostic ignored "-Wnonnull-compare"

static volatile const int64_t *offset_ns;

__attribute__((constructor)) static void fenceguard_clock_shim_init(void) {
    const char *path = getenv("FENCEGUARD_CLOCK_OFFSET_FILE");
    if (path == NULL || *path == '\0') {
        return;
    }
    int fd = (int) syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    void *mapped = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
    syscall(SYS_close, fd);
    if (mapped != MAP_FAILED) {
        offset_ns = (volatile const int64_t *) mapped;
    }
}

static int64_t current_offset(void) {
    return offset_ns == NULL ? 0 : __atomic_load_n(offset_ns, __ATOMIC_RELAXED);
}

static int is_wall_clock(clockid_t clock) {
    return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE
#ifdef CLOCK_REALTIME_ALARM
           || clock == CLOCK_REALTIME_ALARM
#endif
#ifdef CLOCK_TAI
           || clock == CLOCK_TAI
#endif
        ;
}

static void shift(struct timespec *ts, int64_t offset) {
    int64_t ns = (int64_t) ts->tv_nsec + offset % 1000000000LL;
    int64_t sec = (int64_t) ts->tv_sec + offset / 1000000000LL;
    if (ns < 0) {
        ns += 1000000000LL;
        sec -= 1;
    } else if (ns >= 1000000000LL) {
        ns -= 1000000000LL;
        sec += 1;
    }
    ts->tv_sec = (time_t) sec;
    ts->tv_nsec = (long) ns;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    int rc = (int) syscall(SYS_clock_gettime, clock, ts);
    if (rc == 0 && is_wall_clock(clock)) {
        int64_t offset = current_offset();
        if (offset != 0) {
            shift(ts, offset);
        }
    }
    return rc;
}

int __clock_gettime(clockid_t clock, struct timespec *ts) {
    return clock_gettime(clock, ts);
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    if (tz != NULL) {
        struct timezone *zone = (struct timezone *) tz;
        zone->tz_minuteswest = 0;
        zone->tz_dsttime = 0;
    }
    if (tv == NULL) {
        return 0;
    }
    struct timespec ts;
    int rc = clock_gettime(CLOCK_REALTIME, &ts);
    if (rc == 0) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return rc;
}

time_t time(time_t *out) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) {
        return (time_t) -1;
    }
    if (out != NULL) {
        *out = ts.tv_sec;
    }
    return ts.tv_sec;
}
