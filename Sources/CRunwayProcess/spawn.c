// The parent side of `runway_spawn`: starts an app's program straight into place, with no `/bin/sh` in between.
//
// It creates the child with clone3(CLONE_PIDFD | CLONE_INTO_CGROUP) where the kernel has it (Linux 5.7), so that the
// child is in its cgroup from its first instruction and the parent holds a pidfd for it; on older kernels it falls
// back to fork(), the child joining its cgroup by writing "0" to `cgroup.procs` before it execs, and pidfd_open
// (Linux 5.3). A child without a cgroup (signal mode) is started with glibc's clone and CLONE_VM | CLONE_VFORK |
// CLONE_PIDFD on a stack of its own, as posix_spawn does: nothing is copied. On x86_64 a child with a cgroup is too,
// through clone3 with CLONE_VM | CLONE_VFORK | CLONE_INTO_CGROUP and a small assembly trampoline (spawn_vm.c).
// Between the clone and execve the child makes only async-signal-safe calls (spawn_child.c).
//
// An exec failure (or any step before it) reaches the parent as the step and errno, and the failed child is reaped
// before `runway_spawn` returns. A child that shares this process's memory until its exec writes them into the
// parent's `runway_spawn_report`, which the parent reads once the clone returns (as glibc's posix_spawn does): no
// pipe is made, and the parent goes on as soon as the child's execve has replaced its memory, without waiting for
// the child to close its inherited descriptors. A forked child reports through a close-on-exec pipe.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn_internal.h"

/// glibc's clone(3) wrapper (declared by <sched.h> only under _GNU_SOURCE): runs `fn` on `stack` in the child.
extern int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);

/// 0 until clone3 was found missing (ENOSYS, or E2BIG for a kernel without the cgroup field): then 1, and every
/// later spawn forks. A benign race: two threads may both try clone3 once.
static int runway_spawn_clone3_missing = 0;

/// The child's report when it did not share this memory: end of file once it has exec'd (the pipe is
/// close-on-exec), or its step and errno. Closes `fd`.
static void runway_spawn_read_report(int fd, int *step, int *error) {
    int child_report[2] = {0, 0};
    ssize_t got;
    do {
        got = read(fd, child_report, sizeof child_report);
    } while (got < 0 && errno == EINTR);
    if (got != 0) {
        *step = got > 0 ? child_report[0] : RUNWAY_SPAWN_READ;
        *error = got > 0 ? child_report[1] : errno;
    }
    close(fd);
}

/// Waits for `pid` to end, through EINTR.
static void runway_spawn_wait(int pid) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
}

int runway_spawn(const struct runway_spawn_request *request, struct runway_spawn_result *result) {
    memset(result, 0, sizeof *result);
    result->pid = -1;
    result->pidfd = -1;
    // A child sharing this memory reports in `shared`; the pipe is made only for a forked child.
    struct runway_spawn_report shared = {-1, 0, 0};
    int report[2] = {-1, -1};
    // Every signal blocked across the clone, glibc's two internal ones (32, 33) included: pthread_sigmask and
    // sigfillset leave those out, and their handlers must not run in a child that shares this memory. The raw
    // system call, as glibc's own posix_spawn does.
    sigset_t all, previous;
    memset(&all, 0xff, sizeof all);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &previous, _NSIG / 8);

    int pid = -1;
    int pidfd = -1;
    int cgroup_procs_fd = -1;
    int clone_error = 0;
    int failed_step = RUNWAY_SPAWN_CLONE;
    int into_cgroup = request->cgroup_fd >= 0 && !request->join_by_write;
    int clone3_available = !__atomic_load_n(&runway_spawn_clone3_missing, __ATOMIC_RELAXED);
#ifndef SYS_clone3
    clone3_available = 0;
#endif
    if (request->cgroup_fd >= 0 && (!into_cgroup || !clone3_available)) {
        cgroup_procs_fd = openat(request->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
        if (cgroup_procs_fd < 0) clone_error = errno;
    }
    void *stack = NULL;
    if (request->cgroup_fd < 0 && !(RUNWAY_SPAWN_UNDER_TSAN && RUNWAY_HAS_CLONE3_VM && clone3_available)) {
        // Built for ThreadSanitizer this takes the clone3 path below instead: TSan intercepts glibc's clone() as a
        // fork, and its bookkeeping in a child that shares this memory corrupts the parent's (a failed CHECK).
        // No cgroup (signal mode): glibc's clone with CLONE_VM | CLONE_VFORK, as posix_spawn does: the child
        // borrows the parent's memory on a stack of its own until it execs, so nothing is copied (a fork copies
        // the page tables of the whole daemon). CLONE_PIDFD stores the pidfd through parent_tid.
        stack = runway_spawn_stack();
        if (stack != NULL) {
            struct runway_spawn_slots *slots = runway_spawn_slots_acquire(request);
            struct runway_spawn_child_arguments child_arguments = {request, &shared, -1, slots};
            int flags = (int)(RUNWAY_CLONE_VM | RUNWAY_CLONE_VFORK | RUNWAY_CLONE_PIDFD) | SIGCHLD;
            if (slots != NULL) flags |= (int)RUNWAY_CLONE_FILES;
            pid = clone(runway_spawn_child_entry, (char *)stack + RUNWAY_SPAWN_STACK_BYTES, flags, &child_arguments,
                        &pidfd);
            runway_spawn_slots_release(slots);
            if (pid < 0) pidfd = -1;  // and fall through to clone3 or fork
            result->shared_memory = pid > 0;
            result->shared_descriptors = pid > 0 && slots != NULL;
        }
    }
#if RUNWAY_HAS_CLONE3_VM
    else if (clone3_available && clone_error == 0) {
        // A cgroup (freezer): clone3 into it with CLONE_VM | CLONE_VFORK on a stack of its own, through the
        // trampoline, so that this spawn copies no page tables either.
        stack = runway_spawn_stack();
        if (stack != NULL) {
            struct runway_spawn_slots *slots = runway_spawn_slots_acquire(request);
            struct runway_spawn_child_arguments child_arguments = {request, &shared,
                                                                   into_cgroup ? -1 : cgroup_procs_fd, slots};
            struct runway_clone_args arguments;
            memset(&arguments, 0, sizeof arguments);
            arguments.flags = RUNWAY_CLONE_VM | RUNWAY_CLONE_VFORK | RUNWAY_CLONE_PIDFD |
                              (into_cgroup ? RUNWAY_CLONE_INTO_CGROUP : 0) | (slots != NULL ? RUNWAY_CLONE_FILES : 0);
            arguments.pidfd = (uint64_t)(uintptr_t)&pidfd;
            arguments.exit_signal = SIGCHLD;
            arguments.stack = (uint64_t)(uintptr_t)stack;
            arguments.stack_size = RUNWAY_SPAWN_STACK_BYTES;
            arguments.cgroup = into_cgroup ? (uint64_t)request->cgroup_fd : 0;
            long cloned = runway_clone3_vm(&arguments, sizeof arguments, runway_spawn_child_entry, &child_arguments);
            runway_spawn_slots_release(slots);
            if (cloned > 0) {
                pid = (int)cloned;
                result->used_clone3 = 1;
                result->shared_memory = 1;
                result->shared_descriptors = slots != NULL;
            } else {
                // Any other error falls through to the fork-style clone3 below, which reports its own.
                pidfd = -1;
                if (cloned == -ENOSYS || cloned == -E2BIG) {
                    __atomic_store_n(&runway_spawn_clone3_missing, 1, __ATOMIC_RELAXED);
                    clone3_available = 0;
                }
            }
        }
    }
#endif
    // The forked children below report through a pipe.
    if (pid < 0 && clone_error == 0 && syscall(SYS_pipe2, report, O_CLOEXEC) != 0) {
        clone_error = errno;
        failed_step = RUNWAY_SPAWN_PIPE;
    }
#ifdef SYS_clone3
    if (pid < 0 && clone3_available && clone_error == 0) {
        struct runway_clone_args arguments;
        memset(&arguments, 0, sizeof arguments);
        arguments.flags = RUNWAY_CLONE_PIDFD | (into_cgroup ? RUNWAY_CLONE_INTO_CGROUP : 0);
        arguments.pidfd = (uint64_t)(uintptr_t)&pidfd;
        arguments.exit_signal = SIGCHLD;
        arguments.cgroup = into_cgroup ? (uint64_t)request->cgroup_fd : 0;
        long cloned = syscall(SYS_clone3, &arguments, sizeof arguments);
        if (cloned == 0) {
            close(report[0]);
            struct runway_spawn_report piped = {report[1], 0, 0};
            runway_spawn_child(request, &piped, into_cgroup ? -1 : cgroup_procs_fd, NULL);
        }
        if (cloned > 0) {
            pid = (int)cloned;
            result->used_clone3 = 1;
        } else if (errno == ENOSYS || errno == E2BIG) {
            __atomic_store_n(&runway_spawn_clone3_missing, 1, __ATOMIC_RELAXED);
        } else {
            clone_error = errno;
        }
    }
#endif
    if (pid < 0 && clone_error == 0 && request->cgroup_fd >= 0 && cgroup_procs_fd < 0) {
        // clone3 was found missing just now: the fallback joins by writing.
        cgroup_procs_fd = openat(request->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
        if (cgroup_procs_fd < 0) clone_error = errno;
    }
    if (pid < 0 && clone_error == 0) {
        pid = (int)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
        if (pid == 0) {
            close(report[0]);
            struct runway_spawn_report piped = {report[1], 0, 0};
            runway_spawn_child(request, &piped, cgroup_procs_fd, NULL);
        }
        if (pid < 0) clone_error = errno;
    }
    if (cgroup_procs_fd >= 0) close(cgroup_procs_fd);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &previous, NULL, _NSIG / 8);
    if (report[1] >= 0) close(report[1]);
    if (pid < 0) {
        if (report[0] >= 0) close(report[0]);
        result->step = failed_step;
        result->error = clone_error;
        return -clone_error;
    }
    int child_step = 0;
    int child_error = 0;
    if (result->shared_memory) {
        // The clone returned once the child exec'd (its memory replaced) or exited: a failed step is written.
        child_step = shared.step;
        child_error = shared.error;
    } else {
        runway_spawn_read_report(report[0], &child_step, &child_error);
    }
    if (child_step != 0) {
        runway_spawn_wait(pid);
        if (pidfd >= 0) close(pidfd);
        result->step = child_step;
        result->error = child_error != 0 ? child_error : EIO;
        return -result->error;
    }
    if (pidfd < 0) {
#ifdef SYS_pidfd_open
        long opened = syscall(SYS_pidfd_open, pid, 0);
        pidfd = opened >= 0 ? (int)opened : -1;
#endif
        if (pidfd < 0) {
            int error = errno;
#ifndef SYS_pidfd_open
            error = ENOSYS;
#endif
            kill(pid, SIGKILL);
            runway_spawn_wait(pid);
            result->step = RUNWAY_SPAWN_PIDFD;
            result->error = error;
            return -error;
        }
    }
    result->pid = pid;
    result->pidfd = pidfd;
    return 0;
}
