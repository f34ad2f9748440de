// CLibUV spawn: starts an app's program straight into place (issue 15: no `/bin/sh` in between).
//
// `runway_spawn` creates the child with clone3(CLONE_PIDFD | CLONE_INTO_CGROUP) where the kernel has it (Linux
// 5.7), so that the child is in its cgroup from its first instruction and the parent holds a pidfd for it; on
// older kernels it falls back to fork(), the child joining its cgroup by writing "0" to `cgroup.procs` before it
// execs, and pidfd_open (Linux 5.3). A child without a cgroup (signal mode) is started with glibc's clone and
// CLONE_VM | CLONE_VFORK | CLONE_PIDFD on a stack of its own, as posix_spawn does: nothing is copied. On x86_64
// a child with a cgroup is too, through clone3 with CLONE_VM | CLONE_VFORK | CLONE_INTO_CGROUP and a small
// assembly trampoline (`runway_clone3_vm`). Between the clone and execve the child makes only async-signal-safe
// calls.
// An exec failure (or any step before it) reaches the parent as the step and errno, and the failed child is
// reaped before `runway_spawn` returns. A child that shares this process's memory until its exec writes them into
// the parent's `runway_spawn_report`, which the parent reads once the clone returns (as glibc's posix_spawn does):
// no pipe is made, and the parent goes on as soon as the child's execve has replaced its memory, without waiting
// for the child to close its inherited descriptors (Decision 183). A forked child reports through a close-on-exec
// pipe.
#pragma once

#include <uv.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn_limits.h"

/// The steps `runway_spawn` can fail at (`runway_spawn_result.step`).
enum runway_spawn_step {
    RUNWAY_SPAWN_OK = 0,
    RUNWAY_SPAWN_PIPE = 1,
    RUNWAY_SPAWN_CLONE = 2,
    RUNWAY_SPAWN_DESCRIPTORS = 3,
    RUNWAY_SPAWN_SETSID = 4,
    RUNWAY_SPAWN_CHDIR = 5,
    RUNWAY_SPAWN_EXECVE = 6,
    RUNWAY_SPAWN_CGROUP = 7,
    RUNWAY_SPAWN_PIDFD = 8,
    RUNWAY_SPAWN_READ = 9,
    /// Joining a cgroup v1 hierarchy (`cgroup_v1_procs_fds`).
    RUNWAY_SPAWN_CGROUP_V1 = 10,
    RUNWAY_SPAWN_CGROUP_NAMESPACE = 11,
    RUNWAY_SPAWN_SETGROUPS = 12,
    RUNWAY_SPAWN_SETGID = 13,
    RUNWAY_SPAWN_SETUID = 14,
    /// Applying the resource limits: this value plus the index in `rlimits` of the one that failed.
    RUNWAY_SPAWN_RLIMIT = 64,
};

/// What to start. Every descriptor belongs to the caller, which closes it after the call.
struct runway_spawn_request {
    /// The resolved program path (no PATH search).
    const char *path;
    /// NULL-terminated argv and envp.
    char *const *argv;
    char *const *envp;
    /// The working directory, or NULL for the caller's.
    const char *working_directory;
    /// The cgroup v2 directory to start in (O_RDONLY | O_DIRECTORY), or -1 for none.
    int cgroup_fd;
    /// Non-zero: the child joins the cgroup by writing "0" to its `cgroup.procs` before it execs, instead of
    /// being cloned into it (for a cgroup that `cgroup.kill` was written to: see `AppCgroup.killAll`).
    int join_by_write;
    /// The child's stdout and stderr (write ends of pipes) and its protocol channel (-1: none), which it gets as
    /// descriptors 1, 2 and 3. Descriptor 0 is /dev/null.
    int stdout_fd;
    int stderr_fd;
    int channel_fd;
    /// Resource limits the child sets on itself before it execs (`runway_apply_rlimits`), or NULL with count 0.
    const struct runway_rlimit *rlimits;
    int rlimit_count;
    /// `cgroup.procs` files (O_WRONLY) of cgroup v1 hierarchies the child joins by writing "0" before anything else
    /// (the per-app ceilings a hybrid host has only on v1), or NULL with count 0.
    const int *cgroup_v1_procs_fds;
    int cgroup_v1_count;
    /// Non-zero: the child enters a cgroup namespace of its own once it is in its cgroup (unshare
    /// CLONE_NEWCGROUP), so that /proc/self/cgroup shows `0::/` (and, on a cgroup2 mounted with nsdelegate, it
    /// may move no process to or from a cgroup outside its own).
    int new_cgroup_namespace;
    /// The user the child becomes before it execs (`runway_spawn_user`); NULL: the caller's.
    const struct runway_spawn_user *user;
};

/// Credentials a child takes before it execs, resolved by the caller (initgroups and getpwnam are not
/// async-signal-safe): `groups` (`group_count` of them, none for an empty list) replace the supplementary groups,
/// then the real, effective and saved gid and uid are set.
struct runway_spawn_user {
    uint32_t uid;
    uint32_t gid;
    const uint32_t *groups;
    size_t group_count;
};

/// The started child, or the step that failed and its errno.
struct runway_spawn_result {
    int pid;
    /// A close-on-exec pidfd for the child (readable once it exits).
    int pidfd;
    /// 1 when clone3 with CLONE_INTO_CGROUP/CLONE_PIDFD started it, 0 for the fork fallback.
    int used_clone3;
    /// 1 when the child borrowed this process's memory until its exec (CLONE_VM | CLONE_VFORK: no page table
    /// copied), 0 when it was forked.
    int shared_memory;
    /// 1 when it also shared this process's descriptor table until its first step and then kept only the spawn
    /// slots (Decision 189), 0 when it got a copy of the table.
    int shared_descriptors;
    /// The failed step (`runway_spawn_step`) and its errno; 0 on success.
    int step;
    int error;
};

#define RUNWAY_CLONE_PIDFD 0x00001000ULL
#define RUNWAY_CLONE_INTO_CGROUP 0x200000000ULL
#define RUNWAY_CLONE_NEWCGROUP 0x02000000
#define RUNWAY_P_PIDFD 3

/// `struct clone_args` of <linux/sched.h> up to `cgroup` (CLONE_ARGS_SIZE_VER2, Linux 5.7).
struct runway_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};
_Static_assert(sizeof(struct runway_clone_args) == 88, "clone_args version 2 is 88 bytes");

/// 0 until clone3 was found missing (ENOSYS, or E2BIG for a kernel without the cgroup field): then 1, and every
/// later spawn forks. A benign race: two threads may both try clone3 once.
static int runway_spawn_clone3_missing = 0;

/// Where a child reports the step it failed at and its errno: the pipe `fd` (a forked child), or, with `fd` -1,
/// `step` and `error` themselves (a child that shares the parent's memory until its exec: the parent, suspended
/// until the child execs or exits, reads them when the clone returns).
struct runway_spawn_report {
    int fd;
    volatile int step;
    volatile int error;
};

/// Child side: reports `step` and errno and exits 127. Async-signal-safe.
static inline void runway_spawn_child_fail(struct runway_spawn_report *report, int step) {
    int error = errno;
    if (report->fd < 0) {
        report->error = error;
        report->step = step;
        _exit(127);
    }
    int message[2] = {step, error};
    ssize_t ignored = write(report->fd, message, sizeof message);
    (void)ignored;
    _exit(127);
}

/// Decision 189: low descriptor slots through which a child that shares this process's descriptor table
/// (CLONE_FILES) gets its 0-3. The parent fills `fds[1..3]` with the child's stdout, stderr and channel (`fds[0]` is
/// /dev/null, the child's stdin, for good) and clones; the child's first act is `close_range(end, ~0,
/// CLOSE_RANGE_UNSHARE)`, which gives it a table of its own holding only the descriptors below `end` (the slots and
/// the few this process had open before them), so nothing else is copied into it nor closed by its exec. A copied
/// table costs the parent a reference per open descriptor at the clone, and the child a close per descriptor at its
/// exec: about 600 of each at 200 apps (three per running app), 6,000 at 2,000. The parent refills the slots with
/// /dev/null once the clone returns. One set of slots per process, taken under `lock` for the spawn.
struct runway_spawn_slots {
    int fds[4];
    unsigned end;
};
static pthread_mutex_t runway_spawn_slots_lock = PTHREAD_MUTEX_INITIALIZER;
static struct runway_spawn_slots runway_spawn_slots_state = {{-1, -1, -1, -1}, 0};
/// 0 untried (or the descriptors could not be opened yet), 1 ready, -1 unusable (no close_range): spawns copy the
/// table.
static int runway_spawn_slots_status = 0;

/// Under `runway_spawn_slots_lock`: the slots, opened at the first call that can (the lowest free descriptors from
/// 4 up). NULL when unusable, or when no descriptor was free for them: that spawn copies the table and the next one
/// tries again (review r17: one EMFILE at the first spawn turned the slots off for the process's life).
static inline struct runway_spawn_slots *runway_spawn_slots_prepare(void) {
    struct runway_spawn_slots *slots = &runway_spawn_slots_state;
    if (runway_spawn_slots_status != 0) return runway_spawn_slots_status > 0 ? slots : NULL;
#ifdef SYS_close_range
    // close_range and CLOSE_RANGE_UNSHARE came together (Linux 5.9); an empty range is a harmless probe.
    if (syscall(SYS_close_range, ~0U, ~0U, 0) != 0) {
        runway_spawn_slots_status = -1;
        return NULL;
    }
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) return NULL;
    int highest = 0;
    for (int i = 0; i < 4; i++) {
        slots->fds[i] = fcntl(null_fd, F_DUPFD_CLOEXEC, 4);
        if (slots->fds[i] < 0) {
            for (int j = 0; j < i; j++) {
                close(slots->fds[j]);
                slots->fds[j] = -1;
            }
            close(null_fd);
            return NULL;
        }
        if (slots->fds[i] > highest) highest = slots->fds[i];
    }
    close(null_fd);
    slots->end = (unsigned)highest + 1;
    runway_spawn_slots_status = 1;
    return slots;
#else
    runway_spawn_slots_status = -1;
    return NULL;
#endif
}

/// Slot `index` (0-3), or -1 before the first spawn that used them. For tests, through a Swift accessor in the
/// module that spawns (each module that includes this header has its own slots).
static inline int runway_spawn_slot(int index) { return runway_spawn_slots_state.fds[index & 3]; }

/// For tests: closes the slots and forgets them, as before the first spawn (the next spawn opens them again).
static inline void runway_spawn_slots_reset(void) {
    pthread_mutex_lock(&runway_spawn_slots_lock);
    if (runway_spawn_slots_status > 0) {
        for (int i = 0; i < 4; i++) close(runway_spawn_slots_state.fds[i]);
    }
    for (int i = 0; i < 4; i++) runway_spawn_slots_state.fds[i] = -1;
    runway_spawn_slots_state.end = 0;
    runway_spawn_slots_status = 0;
    pthread_mutex_unlock(&runway_spawn_slots_lock);
}

/// Puts /dev/null back in the slots that held the child's descriptors (the parent's references to them go).
static inline void runway_spawn_slots_clear(struct runway_spawn_slots *slots) {
    for (int i = 1; i < 4; i++) (void)syscall(SYS_dup3, slots->fds[0], slots->fds[i], O_CLOEXEC);
}

/// Child side, between the clone and execve: only async-signal-safe calls. Never returns. With `slots` the child
/// shares the parent's descriptor table until its first step (Decision 189).
static inline void runway_spawn_child(const struct runway_spawn_request *request, struct runway_spawn_report *report,
                                      int cgroup_procs_fd, const struct runway_spawn_slots *slots) {
    // Joining the cgroup first (fork fallback only), before anything the program could do.
    if (cgroup_procs_fd >= 0 && write(cgroup_procs_fd, "0", 1) != 1)
        runway_spawn_child_fail(report, RUNWAY_SPAWN_CGROUP);
    for (int i = 0; i < request->cgroup_v1_count; i++) {
        if (write(request->cgroup_v1_procs_fds[i], "0", 1) != 1)
            runway_spawn_child_fail(report, RUNWAY_SPAWN_CGROUP_V1);
    }
    // Descriptors: each source moved to 10 or above first (close-on-exec), so that none is overwritten by a dup2
    // of another; then dup2 into 0-3, which clears close-on-exec on the targets only.
    int sources[4] = {-1, request->stdout_fd, request->stderr_fd, request->channel_fd};
    if (slots != NULL) {
        // A table of its own with only what lies below the slots' end: nothing the parent does reaches it now.
        // Where CLOSE_RANGE_UNSHARE is refused (a seccomp filter), a whole copy of the table, as a child that
        // does not share it gets: the close-on-exec pass below then keeps only 0-3 (Decision 196).
        if (syscall(SYS_close_range, slots->end, ~0U, 1U << 1) != 0 && syscall(SYS_unshare, 0x00000400) != 0)
            runway_spawn_child_fail(report, RUNWAY_SPAWN_DESCRIPTORS);
        for (int i = 0; i < 4; i++) sources[i] = slots->fds[i];
    } else {
        sources[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (sources[0] < 0) runway_spawn_child_fail(report, RUNWAY_SPAWN_DESCRIPTORS);
    }
    int count = request->channel_fd >= 0 ? 4 : 3;
    for (int i = 0; i < count; i++) {
        sources[i] = fcntl(sources[i], F_DUPFD_CLOEXEC, 10);
        if (sources[i] < 0) runway_spawn_child_fail(report, RUNWAY_SPAWN_DESCRIPTORS);
    }
    for (int i = 0; i < count; i++) {
        if (dup2(sources[i], i) != i) runway_spawn_child_fail(report, RUNWAY_SPAWN_DESCRIPTORS);
    }
    // Nothing else reaches the program (Decision 77): every descriptor from `count` up is close-on-exec, the
    // report pipe (of a forked child) included, whatever another thread of the parent opened without O_CLOEXEC.
#ifdef SYS_close_range
    syscall(SYS_close_range, (unsigned)count, ~0U, 1U << 2);
#endif
    // A session and process group of its own, so that signals to -pid reach what it starts.
    if (setsid() < 0) runway_spawn_child_fail(report, RUNWAY_SPAWN_SETSID);
    // Resource limits before anything could drop the privilege to raise a hard one.
    int failed_limit = 0;
    if (request->rlimit_count > 0 && runway_apply_rlimits(request->rlimits, request->rlimit_count, &failed_limit) != 0)
        runway_spawn_child_fail(report, RUNWAY_SPAWN_RLIMIT + failed_limit);
    // Default dispositions and an empty mask (the parent blocked every signal around the clone).
    struct sigaction default_action;
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    for (int signal_number = 1; signal_number < 65; signal_number++) {
        if (signal_number == SIGKILL || signal_number == SIGSTOP) continue;
        (void)sigaction(signal_number, &default_action, NULL);  // EINVAL for libc's internal signals: kept.
    }
    sigset_t empty;
    sigemptyset(&empty);
    (void)sigprocmask(SIG_SETMASK, &empty, NULL);
    // Its own cgroup namespace while still privileged (unshare needs CAP_SYS_ADMIN), rooted at the cgroup it is in.
    if (request->new_cgroup_namespace && syscall(SYS_unshare, RUNWAY_CLONE_NEWCGROUP) != 0)
        runway_spawn_child_fail(report, RUNWAY_SPAWN_CGROUP_NAMESPACE);
    // The app's user, through the raw system calls: glibc's setuid and setgroups change every thread of the
    // process, which a child sharing this memory (CLONE_VM) would take for the parent's threads. Groups first,
    // the uid last (after it nothing else may change).
    const struct runway_spawn_user *user = request->user;
    if (user != NULL) {
        if (syscall(SYS_setgroups, user->group_count, user->group_count > 0 ? user->groups : NULL) != 0)
            runway_spawn_child_fail(report, RUNWAY_SPAWN_SETGROUPS);
        if (syscall(SYS_setresgid, user->gid, user->gid, user->gid) != 0)
            runway_spawn_child_fail(report, RUNWAY_SPAWN_SETGID);
        if (syscall(SYS_setresuid, user->uid, user->uid, user->uid) != 0)
            runway_spawn_child_fail(report, RUNWAY_SPAWN_SETUID);
    }
    // After the switch: the app's user must be able to enter its working directory.
    if (request->working_directory != NULL && chdir(request->working_directory) != 0)
        runway_spawn_child_fail(report, RUNWAY_SPAWN_CHDIR);
    execve(request->path, request->argv, request->envp);
    runway_spawn_child_fail(report, RUNWAY_SPAWN_EXECVE);
}

/// glibc's clone(3) wrapper (declared by <sched.h> only under _GNU_SOURCE): runs `fn` on `stack` in the child.
extern int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);
#define RUNWAY_CLONE_VM 0x00000100ULL
#define RUNWAY_CLONE_FILES 0x00000400ULL
#define RUNWAY_CLONE_VFORK 0x00004000ULL
#define RUNWAY_SPAWN_STACK_BYTES 65536

/// The stack a CLONE_VM child runs on until its exec, one per spawning thread, allocated at its first spawn and
/// freed when the thread ends (Decision 197): the parent is suspended while the child uses it, so one thread never
/// needs two. A fresh 64 KiB allocation per spawn grew and shrank the thread's malloc arena (an `mprotect` each
/// time) and faulted its pages in again. NULL when the allocation fails (the spawn then forks).
static pthread_key_t runway_spawn_stack_key = 0;
static pthread_once_t runway_spawn_stack_once = PTHREAD_ONCE_INIT;
static int runway_spawn_stack_key_ready = 0;
static inline void runway_spawn_stack_make_key(void) {
    runway_spawn_stack_key_ready = pthread_key_create(&runway_spawn_stack_key, free) == 0;
}
static inline void *runway_spawn_stack(void) {
    pthread_once(&runway_spawn_stack_once, runway_spawn_stack_make_key);
    if (!runway_spawn_stack_key_ready) return NULL;
    void *stack = pthread_getspecific(runway_spawn_stack_key);
    if (stack != NULL) return stack;
    stack = malloc(RUNWAY_SPAWN_STACK_BYTES);
    if (stack != NULL && pthread_setspecific(runway_spawn_stack_key, stack) != 0) {
        free(stack);
        return NULL;
    }
    return stack;
}

/// What the child of a CLONE_VM clone gets (it shares the parent's memory while the parent waits).
struct runway_spawn_child_arguments {
    const struct runway_spawn_request *request;
    /// The parent's report, written in place (`fd` -1).
    struct runway_spawn_report *report;
    /// `cgroup.procs` to write "0" to before anything else (joining by write), or -1.
    int cgroup_procs_fd;
    /// The filled slots when the child shares the parent's descriptor table (CLONE_FILES), else NULL.
    const struct runway_spawn_slots *slots;
};

static inline int runway_spawn_child_entry(void *argument) {
    struct runway_spawn_child_arguments *arguments = (struct runway_spawn_child_arguments *)argument;
    runway_spawn_child(arguments->request, arguments->report, arguments->cgroup_procs_fd, arguments->slots);
    return 127;
}

/// Under `runway_spawn_slots_lock`: the slots filled with the request's descriptors, or NULL (unusable, or a dup3
/// failed: the spawn then copies the table).
static inline struct runway_spawn_slots *runway_spawn_slots_fill(const struct runway_spawn_request *request) {
    struct runway_spawn_slots *slots = runway_spawn_slots_prepare();
    if (slots == NULL) return NULL;
    int filled = syscall(SYS_dup3, request->stdout_fd, slots->fds[1], O_CLOEXEC) >= 0 &&
                 syscall(SYS_dup3, request->stderr_fd, slots->fds[2], O_CLOEXEC) >= 0 &&
                 (request->channel_fd < 0 || syscall(SYS_dup3, request->channel_fd, slots->fds[3], O_CLOEXEC) >= 0);
    if (filled) return slots;
    runway_spawn_slots_clear(slots);
    return NULL;
}

#if defined(__x86_64__) && defined(SYS_clone3)
#define RUNWAY_HAS_CLONE3_VM 1
/// clone3 with a function to run on the new stack, as glibc 2.34's internal `__clone3` does (glibc exports no
/// wrapper): `long runway_clone3_vm(struct runway_clone_args *args, size_t size, int (*fn)(void *), void *arg)`.
/// Returns the child's pid or -errno in the parent. The child, whose stack pointer the kernel set to
/// `args->stack + args->stack_size`, touches nothing of the caller's frame: it calls `fn(arg)` on its own stack
/// and exits with its result (`fn` execs or `_exit`s first). `syscall` keeps rdx and r8 (it clobbers rax, rcx,
/// r11), which carry `fn` and `arg` across it.
__attribute__((naked, noinline, used)) static long runway_clone3_vm(struct runway_clone_args *args, size_t size,
                                                                   int (*fn)(void *), void *arg) {
    __asm__ volatile(
        "mov %rcx, %r8\n\t"
        "mov $435, %eax\n\t" /* SYS_clone3 */
        "syscall\n\t"
        "test %rax, %rax\n\t"
        "jz 1f\n\t"
        "ret\n"
        "1:\n\t"
        "xor %ebp, %ebp\n\t"
        "mov %r8, %rdi\n\t"
        "call *%rdx\n\t"
        "mov %eax, %edi\n\t"
        "mov $60, %eax\n\t" /* SYS_exit */
        "syscall\n\t"
        "hlt\n\t");
}
#else
#define RUNWAY_HAS_CLONE3_VM 0
#endif

/// Starts `request` (see the top of this file). Returns 0 with `result->pid` and `result->pidfd` set, or -errno
/// with `result->step` naming what failed. Any thread; blocks until the child has exec'd or failed.
static inline int runway_spawn(const struct runway_spawn_request *request, struct runway_spawn_result *result) {
    memset(result, 0, sizeof *result);
    result->pid = -1;
    result->pidfd = -1;
    // A child sharing this memory reports in `shared`; the pipe is made only for a forked child.
    struct runway_spawn_report shared = {-1, 0, 0};
    int report[2] = {-1, -1};
    // Every signal blocked across the clone, glibc's two internal ones (32, 33) included: pthread_sigmask and
    // sigfillset leave those out, and their handlers must not run in a child that shares this memory. The raw
    // system call, as glibc's own posix_spawn does (review r15).
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
    if (request->cgroup_fd < 0) {
        // No cgroup (signal mode): glibc's clone with CLONE_VM | CLONE_VFORK, as posix_spawn does: the child
        // borrows the parent's memory on a stack of its own until it execs, so nothing is copied (a fork copies
        // the page tables of the whole daemon). CLONE_PIDFD stores the pidfd through parent_tid.
        stack = runway_spawn_stack();
        if (stack != NULL) {
            pthread_mutex_lock(&runway_spawn_slots_lock);
            struct runway_spawn_slots *slots = runway_spawn_slots_fill(request);
            struct runway_spawn_child_arguments child_arguments = {request, &shared, -1, slots};
            int flags = (int)(RUNWAY_CLONE_VM | RUNWAY_CLONE_VFORK | RUNWAY_CLONE_PIDFD) | SIGCHLD;
            if (slots != NULL) flags |= (int)RUNWAY_CLONE_FILES;
            pid = clone(runway_spawn_child_entry, (char *)stack + RUNWAY_SPAWN_STACK_BYTES, flags, &child_arguments,
                        &pidfd);
            if (slots != NULL) runway_spawn_slots_clear(slots);
            pthread_mutex_unlock(&runway_spawn_slots_lock);
            if (pid < 0) pidfd = -1;  // and fall through to clone3 or fork
            result->shared_memory = pid > 0;
            result->shared_descriptors = pid > 0 && slots != NULL;
        }
    }
#if RUNWAY_HAS_CLONE3_VM
    else if (clone3_available && clone_error == 0) {
        // A cgroup (freezer): clone3 into it with CLONE_VM | CLONE_VFORK on a stack of its own, through the
        // trampoline above, so that this spawn copies no page tables either (Decision 162).
        stack = runway_spawn_stack();
        if (stack != NULL) {
            pthread_mutex_lock(&runway_spawn_slots_lock);
            struct runway_spawn_slots *slots = runway_spawn_slots_fill(request);
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
            if (slots != NULL) runway_spawn_slots_clear(slots);
            pthread_mutex_unlock(&runway_spawn_slots_lock);
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
        // The child's report: end of file once it has exec'd (the pipe is close-on-exec), or its step and errno.
        int child_report[2] = {0, 0};
        ssize_t got;
        do {
            got = read(report[0], child_report, sizeof child_report);
        } while (got < 0 && errno == EINTR);
        if (got != 0) {
            child_step = got > 0 ? child_report[0] : RUNWAY_SPAWN_READ;
            child_error = got > 0 ? child_report[1] : errno;
        }
        close(report[0]);
    }
    if (child_step != 0) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
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
            int status;
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            result->step = RUNWAY_SPAWN_PIDFD;
            result->error = error;
            return -error;
        }
    }
    result->pid = pid;
    result->pidfd = pidfd;
    return 0;
}

/// Reaps the exited process `pidfd` refers to without blocking (waitid(P_PIDFD, WEXITED | WNOHANG)): 1 with
/// `*exited` 1 and `*status` the exit status, or `*exited` 0 and `*status` the signal that ended it; 0 when it
/// has not exited; -errno.
static inline int runway_pidfd_reap(int pidfd, int *exited, int *status) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (syscall(SYS_waitid, RUNWAY_P_PIDFD, pidfd, &info, WEXITED | WNOHANG, NULL) != 0) return -errno;
    if (info.si_pid == 0) return 0;
    *exited = info.si_code == CLD_EXITED ? 1 : 0;
    *status = info.si_status;
    return 1;
}

/// What the kernel's wait reports of the process `pidfd` refers to, without consuming it
/// (waitid(P_PIDFD, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT), which looks in that order): 2 exited and not
/// reaped yet; 1 stopped (its whole thread group, by a signal: a ptrace stop or a vfork parent waiting for a stopped
/// child is not reported); 3 continued since it last stopped (SIGCONT found it stopped and nothing stopped it again;
/// Decision 186); 0 none of these; -errno on error (Decision 199). WNOWAIT leaves each report in place: a stop lasts
/// while the process stays stopped, SIGCONT replaces it with a continue, another stop replaces that.
static inline int runway_pidfd_wait_state(int pidfd) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (syscall(SYS_waitid, RUNWAY_P_PIDFD, pidfd, &info, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT, NULL) !=
        0)
        return -errno;
    if (info.si_pid == 0) return 0;
    return info.si_code == CLD_STOPPED ? 1 : info.si_code == CLD_CONTINUED ? 3 : 2;
}

/// The pid of an exited child of this process that nobody has reaped yet, without reaping it
/// (waitid(P_ALL, WEXITED | WNOHANG | WNOWAIT)): the pid, 0 when no child has exited, or -errno (-ECHILD: no
/// children at all).
static inline int runway_peek_exited_child(void) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -errno;
    return info.si_pid;
}

/// Casts for the pidfd poll handle.
static inline uv_handle_t *runway_poll_as_handle(uv_poll_t *poll) { return (uv_handle_t *)poll; }
static inline uv_handle_t *runway_check_as_handle(uv_check_t *check) { return (uv_handle_t *)check; }

/// A close-on-exec pipe (pipe2, which glibc declares only under _GNU_SOURCE). Returns 0 or -errno.
static inline int runway_pipe_cloexec(int fds[2]) {
    return syscall(SYS_pipe2, fds, O_CLOEXEC) == 0 ? 0 : -errno;
}
