// CRunwayProcess: the Linux process calls of Runway's supervisor, in C because they must run between a clone and an
// exec (async-signal-safe, raw system calls) or use what Swift cannot call (variadic `ioctl` and `syscall`, GNU-only
// constants and structs).
//
// Every function reports failure as a negative errno (the convention of libuv's status codes, so `uv_strerror`
// names them) unless its comment says otherwise, and touches no global state beyond the calling thread except the
// spawn's own (its descriptor slots and the note that clone3 is missing). This header declares only: it needs no
// feature macro, so Swift imports it as it is.
#pragma once

#include <stddef.h>
#include <stdint.h>

// MARK: - Spawning (spawn.c, spawn_child.c, spawn_slots.c, spawn_vm.c)

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

/// One resource limit a child sets on itself between its clone and its exec (launchd's SoftResourceLimits /
/// HardResourceLimits): `RUNWAY_RLIMIT_SOFT` and/or `RUNWAY_RLIMIT_HARD` in `given`; a value not given keeps the one
/// the child inherited (launchd's rule). `RLIM_INFINITY` (all ones) is "unlimited". `resource` is an `RLIMIT_*`
/// number (`runway_rlimit_resource`).
struct runway_rlimit {
    int resource;
    int given;
    uint64_t soft;
    uint64_t hard;
};
#define RUNWAY_RLIMIT_SOFT 1
#define RUNWAY_RLIMIT_HARD 2

/// Credentials a child takes before it execs, resolved by the caller (initgroups and getpwnam are not
/// async-signal-safe): `groups` (`group_count` of them, none for an empty list) replace the supplementary groups,
/// then the real, effective and saved gid and uid are set.
struct runway_spawn_user {
    uint32_t uid;
    uint32_t gid;
    const uint32_t *groups;
    size_t group_count;
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
    /// Resource limits the child sets on itself before it execs, or NULL with count 0.
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
    /// The user the child becomes before it execs; NULL: the caller's.
    const struct runway_spawn_user *user;
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
    /// slots (`runway_spawn_slot`), 0 when it got a copy of the table.
    int shared_descriptors;
    /// The failed step (`runway_spawn_step`) and its errno; 0 on success.
    int step;
    int error;
};

/// Starts `request` straight into place, without a shell (spawn.c describes how). Returns 0 with `result->pid` and
/// `result->pidfd` set, or -errno with `result->step` naming what failed; a child that failed is reaped first. Any
/// thread; blocks until the child has exec'd or failed.
int runway_spawn(const struct runway_spawn_request *request, struct runway_spawn_result *result);

/// The `RLIMIT_*` number of launchd's key `index` (glibc defines some only as macros, which Swift does not import):
/// 0 Core, 1 CPU, 2 Data, 3 FileSize, 4 MemoryLock, 5 NumberOfFiles, 6 NumberOfProcesses, 7 ResidentSetSize,
/// 8 Stack.
int runway_rlimit_resource(int index);

/// Spawn slot `index` (0-3), or -1 before the first spawn that used them. For tests.
int runway_spawn_slot(int index);

/// For tests: closes the spawn slots and forgets them, as before the first spawn (the next spawn opens them again).
void runway_spawn_slots_reset(void);

// MARK: - Waiting for and signalling processes (process.c)

/// Reaps the exited process `pidfd` refers to without blocking (waitid(P_PIDFD, WEXITED | WNOHANG)): 1 with
/// `*exited` 1 and `*status` the exit status, or `*exited` 0 and `*status` the signal that ended it; 0 when it
/// has not exited; -errno.
int runway_pidfd_reap(int pidfd, int *exited, int *status);

/// What the kernel's wait reports of the process `pidfd` refers to, without consuming it (waitid(P_PIDFD, WEXITED |
/// WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT), which looks in that order): 2 exited and not reaped yet; 1 stopped
/// (its whole thread group, by a signal: a ptrace stop or a vfork parent waiting for a stopped child is not
/// reported); 3 continued since it last stopped (SIGCONT found it stopped and nothing stopped it again); 0 none of
/// these; -errno on error. WNOWAIT leaves each report in place: a stop lasts while the process stays stopped,
/// SIGCONT replaces it with a continue, another stop replaces that.
int runway_pidfd_wait_state(int pidfd);

/// A pidfd for `pid` (pidfd_open, Linux 5.3), close-on-exec: the descriptor, or -errno (-ENOSYS on older
/// kernels, -ESRCH when no such process exists).
int runway_pidfd_open(int pid);

/// Sends `signal` to the process `pidfd` refers to, never to a later process that reuses its pid
/// (pidfd_send_signal, Linux 5.1). Returns 0 or -errno.
int runway_pidfd_send_signal(int pidfd, int signal);

/// Sends `signal` to `pid` (or to the process group -pid when `pid` is negative). Returns 0 or -errno.
int runway_kill(int pid, int signal);

/// The pid of an exited child of this process that nobody has reaped yet, without reaping it
/// (waitid(P_ALL, WEXITED | WNOHANG | WNOWAIT)): the pid, 0 when no child has exited, or -errno (-ECHILD: no
/// children at all).
int runway_peek_exited_child(void);

/// Reaps `pid` if it has exited, without blocking: the pid when reaped, 0 when it is still running, or -errno
/// (-ECHILD when it is not, or no longer, a child of this process).
int runway_reap_nonblocking(int pid);

/// Makes the calling process a child subreaper (PR_SET_CHILD_SUBREAPER): orphaned descendants of its children
/// are re-parented to it instead of to pid 1, so it can reap them. Returns 0 or -errno.
int runway_set_child_subreaper(void);

/// Adds SA_NOCLDSTOP to SIGCHLD's installed handler, so that a child's stop or continue raises no SIGCHLD (the
/// wait still reports both). Only when a handler is installed: SIG_DFL and SIG_IGN are left as they are. Returns 1
/// when the flag is set now, 0 when there is no handler, -errno on error.
int runway_sigchld_without_stops(void);

/// 1 when SIGCHLD's disposition has SA_NOCLDSTOP, 0 when not, -errno on error. For tests.
int runway_sigchld_skips_stops(void);

// MARK: - Descriptors (descriptors.c)

/// Grows this process's descriptor table to hold descriptor `count - 1` now, so that the launches that open the
/// descriptors later do not wait for the kernel to grow it (descriptors.c says how and why). Returns 0, or -errno
/// (-EINVAL when `count` exceeds RLIMIT_NOFILE).
int runway_reserve_descriptors(int count);

/// Marks every open descriptor from `first` up close-on-exec, so that no program this process starts inherits
/// one by accident (a child gets only what its spawn maps into it). One `close_range(first, ~0U,
/// CLOSE_RANGE_CLOEXEC)` call (Linux 5.11); on older kernels, each descriptor listed in /proc/self/fd. Returns 0
/// or -errno.
int runway_mark_descriptors_cloexec(int first);

/// A connected pair of close-on-exec Unix stream sockets (the app protocol channel, A4). Returns 0 or -errno.
int runway_socketpair(int fds[2]);

/// A close-on-exec pipe (pipe2, which glibc declares only under _GNU_SOURCE). Returns 0 or -errno.
int runway_pipe_cloexec(int fds[2]);

/// What the peer of the connected Unix stream socket `fd` has not read yet of what was sent on it (SIOCOUTQ, the
/// same request as TIOCOUTQ; for a Unix socket the kernel counts the buffers' allocation, not the bytes, so the
/// value is only meaningful as zero or not). 0 once the peer has read everything; -errno on failure. `ioctl` is
/// variadic, which Swift cannot call.
int runway_socket_unread_by_peer(int fd);

// MARK: - /proc (procstat.c)

/// The fields of `/proc/PID/stat` that Runway uses (`ProcFS.Stat`).
struct runway_proc_stat {
    /// The one-letter state (field 3).
    char state;
    int parent;
    int process_group;
    int session;
    /// Field 9, the kernel's PF_* flags of the task: PF_EXITING (0x4) is set once it has begun to exit, before it
    /// closes its descriptors and long before it is a zombie.
    unsigned int flags;
    /// Field 20, the number of threads.
    int threads;
    /// Field 22, clock ticks after boot.
    uint64_t start_time;
};

/// Reads and parses `/proc/PID/stat` (`path`, or "/proc/<pid>/stat" when `path` is NULL) without allocating. Fields
/// are counted from the last ')' (the command name may hold spaces and parentheses). Returns 0, -errno when the
/// file cannot be read (-ENOENT: no such process), or -EINVAL when it does not parse. Any thread.
int runway_proc_stat(int pid, const char *path, struct runway_proc_stat *out);

/// The number of threads of `pid` from the link count of `/proc/PID/task` (two plus one per thread), without
/// reading `/proc/PID/stat` (a `stat` of a cached entry costs a sixth of that read). -errno when it cannot be read.
/// Any thread.
int runway_proc_thread_count(int pid);

/// Opens `/proc/PID/environ` read-only with this thread's file-system uid and gid set to the process's owner for
/// the `open` (no CAP_SYS_PTRACE needed for another user's process; CAP_SETUID and CAP_SETGID are). The descriptor,
/// or -errno. Any thread.
int runway_open_environ_as_owner(int pid);

/// The `f_type` of the file system holding the open `fd` (`fstatfs`; linux/magic.h names them), or -errno.
long long runway_file_system_type(int fd);

/// The pids of `pid`'s children, as its threads' `/proc/PID/task/TID/children` list them (zombies included),
/// written to `out` (at most `capacity`). With `single_thread` non-zero (the caller read one thread in its stat)
/// only the main thread's file is read, without listing `/proc/PID/task`. Returns how many there are (more than
/// `capacity` when `out` was too small: call again with room for that many), or -errno when the process's task
/// folder cannot be read. Any thread.
int runway_proc_children(int pid, int single_thread, int *out, int capacity);

/// This process's children that the calling thread did not start, as `runway_proc_children` lists them: every
/// thread's `children` file but the caller's, which holds only the children the caller started unless the caller is
/// the first live thread in the task list (the kernel gives a process whose parent exits to the first live thread
/// of its child subreaper); then the caller's is read too, and `*caller_skipped` is 0 (else 1). The caller's
/// children are the apps' main processes, known already: a look costs O(other children), not O(apps running).
/// Returns the count, or -errno when `/proc/self/task` cannot be read. Any thread.
int runway_proc_own_children(int *out, int capacity, int *caller_skipped);
