// What the files of the spawn share, and nothing else includes: the report a child writes, the descriptor slots, the
// clone constants glibc shows only under _GNU_SOURCE, and the per-thread stack of a CLONE_VM child.
//
// Every function here has hidden visibility, so that a call from a child that shares this process's memory goes
// straight to it, not through the dynamic linker's lazy binding.
#pragma once

#include <stdint.h>
#include <sys/syscall.h>

#include "CRunwayProcess.h"

#define RUNWAY_HIDDEN __attribute__((visibility("hidden")))

// 1 when built for ThreadSanitizer (`make sanitize-thread`). TSan's interceptors keep their state (the signal
// handlers it forwards to, the descriptor table, its thread's state) in memory that a CLONE_VM child shares with the
// parent: a call the child makes through them changes the parent's. Under TSan the child therefore makes its calls
// that TSan intercepts (signal dispositions, mask, exit) as raw system calls, and no child comes from glibc's clone.
#if defined(__SANITIZE_THREAD__)
#define RUNWAY_SPAWN_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RUNWAY_SPAWN_UNDER_TSAN 1
#endif
#endif
#ifndef RUNWAY_SPAWN_UNDER_TSAN
#define RUNWAY_SPAWN_UNDER_TSAN 0
#endif

#define RUNWAY_CLONE_VM 0x00000100ULL
#define RUNWAY_CLONE_FILES 0x00000400ULL
#define RUNWAY_CLONE_PIDFD 0x00001000ULL
#define RUNWAY_CLONE_VFORK 0x00004000ULL
#define RUNWAY_CLONE_NEWCGROUP 0x02000000
#define RUNWAY_CLONE_INTO_CGROUP 0x200000000ULL
#define RUNWAY_SPAWN_STACK_BYTES 65536

/// `struct clone_args` of <linux/sched.h> up to `cgroup` (CLONE_ARGS_SIZE_VER2, Linux 5.7).
struct runway_clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};
_Static_assert(sizeof(struct runway_clone_args) == 88, "clone_args version 2 is 88 bytes");

/// Where a child reports the step it failed at and its errno: the pipe `fd` (a forked child), or, with `fd` -1,
/// `step` and `error` themselves (a child that shares the parent's memory until its exec: the parent, suspended
/// until the child execs or exits, reads them when the clone returns).
struct runway_spawn_report {
    int fd;
    volatile int step;
    volatile int error;
};

/// Low descriptor slots through which a child that shares this process's descriptor table (CLONE_FILES) gets its
/// 0-3 (spawn_slots.c). `end` is one past the highest slot.
struct runway_spawn_slots {
    int fds[4];
    unsigned end;
};

/// Child side, between the clone and execve: only async-signal-safe calls. Never returns (spawn_child.c).
RUNWAY_HIDDEN void runway_spawn_child(const struct runway_spawn_request *request, struct runway_spawn_report *report,
                                      int cgroup_procs_fd, const struct runway_spawn_slots *slots);

/// Child side: applies `count` limits in order. Returns -1 with errno set and `*failed` the index of the limit
/// that could not be applied, or 0 (spawn_limits.c).
RUNWAY_HIDDEN int runway_apply_rlimits(const struct runway_rlimit *limits, int count, int *failed);

/// Takes the slots' lock for one spawn and returns the slots filled with the request's descriptors, or NULL
/// (unusable, or a dup3 failed: the spawn then copies the table). Release with `runway_spawn_slots_release`.
RUNWAY_HIDDEN struct runway_spawn_slots *runway_spawn_slots_acquire(const struct runway_spawn_request *request);

/// Puts /dev/null back in the slots that held the child's descriptors (the parent's references to them go), when
/// `slots` is not NULL, and releases the lock `runway_spawn_slots_acquire` took.
RUNWAY_HIDDEN void runway_spawn_slots_release(struct runway_spawn_slots *slots);

/// This thread's stack for a CLONE_VM child, RUNWAY_SPAWN_STACK_BYTES long, or NULL (spawn_vm.c).
RUNWAY_HIDDEN void *runway_spawn_stack(void);

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

/// The function a CLONE_VM child runs on its own stack: `runway_spawn_child` with `argument`, a
/// `struct runway_spawn_child_arguments`.
RUNWAY_HIDDEN int runway_spawn_child_entry(void *argument);

#if defined(__x86_64__) && defined(SYS_clone3)
#define RUNWAY_HAS_CLONE3_VM 1
/// clone3 that runs `fn(arg)` on the new stack in the child (spawn_vm.c). Returns the child's pid or -errno.
RUNWAY_HIDDEN long runway_clone3_vm(struct runway_clone_args *args, size_t size, int (*fn)(void *), void *arg);
#else
#define RUNWAY_HAS_CLONE3_VM 0
#endif
