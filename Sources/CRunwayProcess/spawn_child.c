// The child side of `runway_spawn`, between the clone and execve. It may share the parent's memory (CLONE_VM) and
// descriptor table (CLONE_FILES) while the parent waits, so it makes only async-signal-safe calls, and changes its
// credentials through the raw system calls: glibc's wrappers signal every thread of the process, which a child
// sharing this memory would take for the parent's threads.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn_internal.h"

// TSan's _exit finalizes TSan, in memory a CLONE_VM child shares with the parent: under TSan the raw system call.
#if RUNWAY_SPAWN_UNDER_TSAN
#define RUNWAY_CHILD_EXIT(status) syscall(SYS_exit_group, (status))
#else
#define RUNWAY_CHILD_EXIT(status) _exit(status)
#endif

/// Reports `step` and errno and exits 127. Async-signal-safe.
static void runway_spawn_child_fail(struct runway_spawn_report *report, int step) {
    int error = errno;
    if (report->fd < 0) {
        report->error = error;
        report->step = step;
        RUNWAY_CHILD_EXIT(127);
    }
    int message[2] = {step, error};
    ssize_t ignored = write(report->fd, message, sizeof message);
    (void)ignored;
    RUNWAY_CHILD_EXIT(127);
}

void runway_spawn_child(const struct runway_spawn_request *request, struct runway_spawn_report *report,
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
        // does not share it gets: the close-on-exec pass below then keeps only 0-3.
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
    // Nothing else reaches the program: every descriptor from `count` up is close-on-exec, the report pipe (of a
    // forked child) included, whatever another thread of the parent opened without O_CLOEXEC.
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
#if RUNWAY_SPAWN_UNDER_TSAN
    // The kernel's struct: handler, flags, restorer, mask (SIG_DFL needs no restorer).
    struct {
        void (*handler)(int);
        unsigned long flags;
        void (*restorer)(void);
        uint64_t mask;
    } kernel_default = {SIG_DFL, 0, NULL, 0};
    for (int signal_number = 1; signal_number < 65; signal_number++) {
        if (signal_number == SIGKILL || signal_number == SIGSTOP) continue;
        (void)syscall(SYS_rt_sigaction, signal_number, &kernel_default, NULL, sizeof(uint64_t));
    }
    uint64_t no_signals = 0;
    (void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &no_signals, NULL, sizeof no_signals);
#else
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
#endif
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

int runway_spawn_child_entry(void *argument) {
    struct runway_spawn_child_arguments *arguments = (struct runway_spawn_child_arguments *)argument;
    runway_spawn_child(arguments->request, arguments->report, arguments->cgroup_procs_fd, arguments->slots);
    return 127;
}
