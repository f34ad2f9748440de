// CLibUV: libuv plus the few Linux calls Swift cannot express directly (macros, GNU-only structs, errno).
//
// Every helper reports failure as a negative errno (the same convention as libuv's status codes, so
// `uv_strerror` names them) and never touches global state beyond the calling thread.
#pragma once

#include <uv.h>

#include <errno.h>
#include <stdint.h>
#include <sched.h>
#include <sys/ioctl.h>
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
/// iteration). `uv_loop_configure` is variadic, which Swift cannot call. Returns 0 or a libuv error.
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

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

/// Makes the calling process a child subreaper (PR_SET_CHILD_SUBREAPER): orphaned descendants of its children
/// are re-parented to it instead of to pid 1, so it can reap them. Returns 0 or -errno.
static inline int runway_set_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -errno;
}

/// Reaps `pid` if it has exited, without blocking: the pid when reaped, 0 when it is still running, or -errno
/// (-ECHILD when it is not, or no longer, a child of this process).
static inline int runway_reap_nonblocking(int pid) {
    int status = 0;
    int result = waitpid(pid, &status, WNOHANG);
    return result >= 0 ? result : -errno;
}

/// Grows this process's descriptor table to hold descriptor `count - 1` now, by duplicating a descriptor of its own
/// (an O_PATH one of "/") to the lowest free one from `count - 1` up and closing both (no open descriptor is touched;
/// the table never shrinks). Not a copy of 0, 1 or 2: closing any descriptor of a file releases the POSIX record locks
/// this process holds on it, such as a daemon's lock on a pid file opened as descriptor 0; an O_PATH descriptor's
/// close releases none (review r18).
/// Linux grows a table shared by several threads only after an RCU grace period (`synchronize_rcu` in
/// `expand_fdtable`), milliseconds each time it doubles; done once ahead, the launches that open the descriptors do
/// not wait for it (Decision 202). Returns 0, or -errno (-EINVAL when `count` exceeds RLIMIT_NOFILE).
#ifndef O_PATH
#define O_PATH 010000000  // <fcntl.h> shows it only under _GNU_SOURCE.
#endif
static inline int runway_reserve_descriptors(int count) {
    if (count < 1) return 0;
    int own = open("/", O_PATH | O_CLOEXEC);
    if (own < 0) return -errno;
    int copy = fcntl(own, F_DUPFD_CLOEXEC, count - 1);
    int error = copy < 0 ? errno : 0;
    if (copy >= 0) close(copy);
    close(own);
    return -error;
}

/// Adds SA_NOCLDSTOP to SIGCHLD's installed handler, so that a child's stop or continue raises no SIGCHLD (the
/// wait still reports both; Decision 200). Only when a handler is installed: SIG_DFL and SIG_IGN are left as they
/// are. Returns 1 when the flag is set now, 0 when there is no handler, -errno on error.
static inline int runway_sigchld_without_stops(void) {
    struct sigaction action;
    if (sigaction(SIGCHLD, NULL, &action) != 0) return -errno;
    int handled = (action.sa_flags & SA_SIGINFO) ? action.sa_sigaction != NULL
                                                 : (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN);
    if (!handled) return 0;
    if (action.sa_flags & SA_NOCLDSTOP) return 1;
    action.sa_flags |= SA_NOCLDSTOP;
    return sigaction(SIGCHLD, &action, NULL) == 0 ? 1 : -errno;
}

/// 1 when SIGCHLD's disposition has SA_NOCLDSTOP, 0 when not, -errno on error. For tests.
static inline int runway_sigchld_skips_stops(void) {
    struct sigaction action;
    if (sigaction(SIGCHLD, NULL, &action) != 0) return -errno;
    return (action.sa_flags & SA_NOCLDSTOP) ? 1 : 0;
}

/// A connected pair of close-on-exec Unix stream sockets (the app protocol channel, A4). Returns 0 or -errno.
static inline int runway_socketpair(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0 ? 0 : -errno;
}

/// What the peer of the connected Unix stream socket `fd` has not read yet of what was sent on it (SIOCOUTQ, the
/// same request as TIOCOUTQ; for a Unix socket the kernel counts the buffers' allocation, not the bytes, so the
/// value is only meaningful as zero or not). 0 once the peer has read everything; -errno on failure. `ioctl` is
/// variadic, which Swift cannot call.
static inline int runway_socket_unread_by_peer(int fd) {
    int unread = 0;
    return ioctl(fd, TIOCOUTQ, &unread) == 0 ? unread : -errno;
}

/// Sends `signal` to `pid` (or to the process group -pid when `pid` is negative). Returns 0 or -errno.
static inline int runway_kill(int pid, int signal) {
    return kill(pid, signal) == 0 ? 0 : -errno;
}

/// C casts between libuv's handle "subclasses", which Swift sees as unrelated types.
static inline uv_stream_t *runway_pipe_as_stream(uv_pipe_t *pipe) { return (uv_stream_t *)pipe; }
static inline uv_handle_t *runway_pipe_as_handle(uv_pipe_t *pipe) { return (uv_handle_t *)pipe; }
static inline uv_handle_t *runway_process_as_handle(uv_process_t *process) { return (uv_handle_t *)process; }
static inline uv_handle_t *runway_timer_as_handle(uv_timer_t *timer) { return (uv_handle_t *)timer; }
static inline uv_handle_t *runway_signal_as_handle(uv_signal_t *signal) { return (uv_handle_t *)signal; }

#include <dirent.h>
#include <stdlib.h>
#include <sys/syscall.h>

/// CLOSE_RANGE_CLOEXEC from <linux/close_range.h> (Linux 5.11), which older headers lack.
#define RUNWAY_CLOSE_RANGE_CLOEXEC (1U << 2)

/// Marks every open descriptor from `first` up close-on-exec, so that no program this process starts inherits
/// one by accident (a child gets only what `uv_spawn` maps into it). One `close_range(first, ~0U,
/// CLOSE_RANGE_CLOEXEC)` call (Linux 5.11); on older kernels, each descriptor listed in /proc/self/fd. Returns 0
/// or -errno.
static inline int runway_mark_descriptors_cloexec(int first) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, ~0U, RUNWAY_CLOSE_RANGE_CLOEXEC) == 0) return 0;
    if (errno != ENOSYS && errno != EINVAL) return -errno;
#endif
    DIR *directory = opendir("/proc/self/fd");
    if (directory == NULL) return -errno;
    int own = dirfd(directory);
    int status = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int fd = atoi(entry->d_name);
        if (fd < first || fd == own) continue;
        int flags = fcntl(fd, F_GETFD);
        if (flags >= 0 && (flags & FD_CLOEXEC) == 0 && fcntl(fd, F_SETFD, flags | FD_CLOEXEC) != 0) status = -errno;
    }
    closedir(directory);
    return status;
}

/// A pidfd for `pid` (pidfd_open, Linux 5.3), close-on-exec: the descriptor, or -errno (-ENOSYS on older
/// kernels, -ESRCH when no such process exists).
static inline int runway_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, pid, 0);
    return fd >= 0 ? (int)fd : -errno;
#else
    (void)pid;
    return -ENOSYS;
#endif
}

/// Sends `signal` to the process `pidfd` refers to, never to a later process that reuses its pid
/// (pidfd_send_signal, Linux 5.1). Returns 0 or -errno.
static inline int runway_pidfd_send_signal(int pidfd, int signal) {
#ifdef SYS_pidfd_send_signal
    return syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0) == 0 ? 0 : -errno;
#else
    (void)pidfd;
    (void)signal;
    return -ENOSYS;
#endif
}
