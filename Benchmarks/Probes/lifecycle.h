// What Probes/lifecycle.c and Probes/lifecycle_spawn.c share: one child of the probe, and the spawn mechanisms
// other than libuv's (lifecycle_spawn.c); and the probe's clocks (lifecycle_clock.c).
#pragma once

#include <uv.h>

typedef struct {
    uv_process_t process;
    // The exit of a child not started by uv_spawn: its pidfd, polled on the loop, then waitid(P_PIDFD).
    uv_poll_t exit_poll;
    int pidfd;
    int pid;
    int exited;
    int confirmed;
    // signal-least: the child's oom_score_adj, open from its first write to its exit, or -1.
    int oom_fd;
    char cgroup[512];
    uv_pipe_t out, err;
} child_t;

// How a child is started: libuv's uv_spawn (fork, then exec, with a pipe for the exec's outcome); Runway's own
// runway_spawn (Sources/CRunwayProcess: clone with CLONE_VM | CLONE_VFORK, clone3 with CLONE_INTO_CGROUP for the
// freezer); glibc's posix_spawn (clone with CLONE_VM | CLONE_VFORK, the cgroup joined afterwards).
typedef enum { SPAWN_LIBUV, SPAWN_RUNWAY, SPAWN_POSIX } spawn_mechanism_t;

// Parses "libuv", "runway" or "posix_spawn"; -1 for anything else.
int spawn_mechanism_named(const char *name);
const char *spawn_mechanism_name(spawn_mechanism_t mechanism);

// Starts `argv` with `mechanism` (not SPAWN_LIBUV), stdin on /dev/null, stdout and stderr on /dev/null or, with
// `pipes`, on pipes whose read ends it opens as child->out and child->err (the caller reads them) and the child a
// session leader (runway_spawn always makes it one). With a `cgroup` folder the child runs in it (runway: from its
// first instruction; posix_spawn: its pid written to cgroup.procs right after). Sets child->pid and child->pidfd
// and polls the pidfd on `loop`; `*exited` goes up by one once the child has been reaped. Exits the probe with a
// message on failure.
void spawn_child(uv_loop_t *loop, child_t *child, spawn_mechanism_t mechanism, char *const argv[], int *exited,
                 int pipes);

// Reads up to size - 1 bytes of path into buffer; returns the length, or -1 (lifecycle.c).
int read_file(const char *path, char *buffer, size_t size);
// Writes text to path; exits the probe with a message when it cannot (lifecycle.c).
void write_file(const char *path, const char *text);

// The rules' per-app work (lifecycle_rules.c). signal-rules: before a signal, the stat and children files read
// and, with `oom` >= 0, oom_score_adj written, each by path.
void rules_before_signal(child_t *child, int oom);
// signal-least: oom_score_adj written through a descriptor opened at the first write; the process's tree read (the
// link count of /proc/PID/task, the children file); a suspension (`suspend`) or resumption confirmed by the
// kernel's wait on the pidfd, then for a suspension the tree (1 when confirmed); the oom descriptor closed at exit.
void least_oom(child_t *child, int value);
void least_tree(child_t *child);
int least_confirmed(child_t *child, int suspend);
void least_exited(child_t *child);

// CLOCK_MONOTONIC in milliseconds (lifecycle_clock.c).
double now_ms(void);
// This process's CPU time, user and system, in milliseconds: getrusage(RUSAGE_SELF), its children's not included.
double cpu_ms(void);
