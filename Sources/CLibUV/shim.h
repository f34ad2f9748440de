// CLibUV: libuv plus the few calls of the loop thread Swift cannot express directly (variadic functions, macros,
// GNU-only structs, errno), each small enough to inline: the clock, timerfd, thread scheduling, the control socket's
// peer, and casts between libuv's handle types. The process supervisor's C is a target of its own, CRunwayProcess.
//
// Every helper reports failure as a negative errno (the same convention as libuv's status codes, so
// `uv_strerror` names them) and never touches global state beyond the calling thread.
#pragma once

#include <uv.h>

#include <errno.h>
#include <stdint.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/// CLOCK_MONOTONIC in nanoseconds (about 292 years of range). Never fails on Linux.
static inline uint64_t runway_monotonic_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

/// A non-blocking, close-on-exec timerfd on CLOCK_MONOTONIC. Returns the descriptor or -errno.
static inline int runway_timerfd_create(void) {
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

/// Arms `fd` to expire once at the absolute CLOCK_MONOTONIC reading `monotonic_nanoseconds`.
/// A time in the past expires at once; 0 (which the kernel reads as "disarm") becomes 1 ns; values past
/// INT64_MAX saturate (about 292 years: never). Re-arming discards an expiration not yet read.
/// Returns 0 or -errno.
static inline int runway_timerfd_arm_absolute(int fd, uint64_t monotonic_nanoseconds) {
    if (monotonic_nanoseconds == 0) monotonic_nanoseconds = 1;
    if (monotonic_nanoseconds > (uint64_t)INT64_MAX) monotonic_nanoseconds = (uint64_t)INT64_MAX;
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)(monotonic_nanoseconds / 1000000000ull);
    spec.it_value.tv_nsec = (long)(monotonic_nanoseconds % 1000000000ull);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL) == 0 ? 0 : -errno;
}

/// Nanoseconds until `fd` expires (0 when disarmed), or -errno.
static inline int64_t runway_timerfd_remaining_nanoseconds(int fd) {
    struct itimerspec spec;
    if (timerfd_gettime(fd, &spec) != 0) return -errno;
    return (int64_t)spec.it_value.tv_sec * 1000000000LL + spec.it_value.tv_nsec;
}

/// Disarms `fd` and discards an expiration not yet read. Returns 0 or -errno.
static inline int runway_timerfd_disarm(int fd) {
    struct itimerspec spec = {0};
    return timerfd_settime(fd, 0, &spec, NULL) == 0 ? 0 : -errno;
}

/// Reads and clears the expiration count of a non-blocking timerfd: the count (> 0), 0 when nothing has
/// expired (EAGAIN: re-armed or disarmed after the readiness was reported), or -errno.
static inline int64_t runway_timerfd_read_expirations(int fd) {
    uint64_t expirations = 0;
    ssize_t result = read(fd, &expirations, sizeof expirations);
    if (result == (ssize_t)sizeof expirations) return (int64_t)expirations;
    if (result < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
    return result < 0 ? -errno : -EIO;
}

/// Turns on libuv's idle-time accounting for `loop` (UV_METRICS_IDLE_TIME), which `uv_metrics_idle_time`
/// reads: libuv then times every wait in epoll (two clock reads and one extra non-blocking epoll_wait per loop
/// iteration). Only sets a flag of the loop, so it may be called on the loop thread while the loop runs; there is
/// no call that turns it off. `uv_loop_configure` is variadic, which Swift cannot call. Returns 0 or a libuv error.
static inline int runway_loop_enable_idle_time(uv_loop_t *loop) {
    return uv_loop_configure(loop, UV_METRICS_IDLE_TIME);
}

/// Names the calling thread (truncated by the kernel to 15 bytes) for `ps -L`, gdb and perf.
/// Returns 0 or -errno.
static inline int runway_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0) == 0 ? 0 : -errno;
}

/// SCHED_RESET_ON_FORK from <linux/sched.h>, which glibc's <sched.h> shows only under _GNU_SOURCE.
#define RUNWAY_SCHED_RESET_ON_FORK 0x40000000

/// Puts the calling thread in SCHED_FIFO at `priority`, with SCHED_RESET_ON_FORK so that threads and processes
/// it creates (libuv's `uv_spawn` forks from it) start at the normal policy. Returns 0 or -errno: -EPERM without
/// CAP_SYS_NICE when RLIMIT_RTPRIO is below `priority`, -EINVAL outside 1...99.
static inline int runway_set_thread_fifo(int priority) {
    struct sched_param parameter = { .sched_priority = priority };
    return sched_setscheduler(0, SCHED_FIFO | RUNWAY_SCHED_RESET_ON_FORK, &parameter) == 0 ? 0 : -errno;
}

/// The scheduling policy of thread or process `tid` (0: the calling thread) without the reset-on-fork flag
/// (SCHED_OTHER 0, SCHED_FIFO 1, ...), or -errno.
static inline int runway_thread_policy(int tid) {
    int policy = sched_getscheduler(tid);
    return policy >= 0 ? (policy & ~RUNWAY_SCHED_RESET_ON_FORK) : -errno;
}

/// The real-time priority of thread or process `tid` (0: the calling thread; 0 for non-real-time policies), or
/// -errno.
static inline int runway_thread_priority(int tid) {
    struct sched_param parameter;
    return sched_getparam(tid, &parameter) == 0 ? parameter.sched_priority : -errno;
}

/// The highest SCHED_FIFO priority RLIMIT_RTPRIO (`ulimit -r`) lets this process ask for without CAP_SYS_NICE
/// (99 when unlimited), or -errno.
static inline int runway_realtime_priority_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_RTPRIO, &limit) != 0) return -errno;
    return limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > 99 ? 99 : (int)limit.rlim_cur;
}

/// Tells the CPU the caller is spinning (x86 `pause`, ARM `yield`), which frees resources for a sibling
/// hyperthread and saves power; a no-op elsewhere.
static inline void runway_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/// The layout of Linux's `struct ucred`, which <sys/socket.h> only declares under _GNU_SOURCE (and which
/// Swift therefore cannot see). Same three 32-bit fields, same order.
struct runway_ucred {
    int32_t pid;
    uint32_t uid;
    uint32_t gid;
};
_Static_assert(sizeof(struct runway_ucred) == 12, "struct ucred is three 32-bit fields on Linux");

/// The uid of the peer of the connected Unix socket `fd` (SO_PEERCRED, as of connect time):
/// the uid (>= 0) or -errno.
static inline int64_t runway_peer_uid(int fd) {
    struct runway_ucred credentials = {0};
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -errno;
    if (length != sizeof credentials) return -EINVAL;
    return (int64_t)credentials.uid;
}

/// C casts between libuv's handle "subclasses", which Swift sees as unrelated types.
static inline uv_stream_t *runway_pipe_as_stream(uv_pipe_t *pipe) { return (uv_stream_t *)pipe; }
static inline uv_handle_t *runway_pipe_as_handle(uv_pipe_t *pipe) { return (uv_handle_t *)pipe; }
static inline uv_handle_t *runway_process_as_handle(uv_process_t *process) { return (uv_handle_t *)process; }
static inline uv_handle_t *runway_timer_as_handle(uv_timer_t *timer) { return (uv_handle_t *)timer; }
static inline uv_handle_t *runway_signal_as_handle(uv_signal_t *signal) { return (uv_handle_t *)signal; }
static inline uv_handle_t *runway_poll_as_handle(uv_poll_t *poll) { return (uv_handle_t *)poll; }
static inline uv_handle_t *runway_check_as_handle(uv_check_t *check) { return (uv_handle_t *)check; }
