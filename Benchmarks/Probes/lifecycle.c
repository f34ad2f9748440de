// The floor under Runway's process lifecycle: the whole lifecycle of N `/bin/sleep 1000` children on raw libuv,
// phase by phase, with the same confirmations as Benchmarks/Sources/ProcessLifecycle:
//   spawn      start every child (done once each has exec'd); freezer: mkdir one cgroup v2 per child first
//   suspend    signal: SIGSTOP each, done when every /proc/PID/stat shows state T;
//              freezer: write 1 to each cgroup.freeze, done when every cgroup.events shows "frozen 1"
//   resume     SIGCONT (state no longer T), or 0 to cgroup.freeze ("frozen 0")
//   terminate  SIGTERM each, done when every child has been reaped (all exit callbacks ran); the freezer's cgroups
//              are removed after the timed phase
// Confirmations poll without sleeping, over the children not yet confirmed.
// The spawn mechanism (the fourth argument; lifecycle.h, lifecycle_spawn.c):
//   libuv        uv_spawn (a fork: the page tables copied; libuv returns once the child has exec'd); freezer: the
//                pid written to the child's cgroup.procs after uv_spawn; exits through libuv's SIGCHLD handling
//   runway       Runway's own runway_spawn (Sources/CRunwayProcess, compiled in): clone with CLONE_VM |
//                CLONE_VFORK, or for the freezer clone3 with CLONE_VM | CLONE_VFORK | CLONE_INTO_CGROUP (the child
//                in its cgroup from its first instruction); exits through a polled pidfd and waitid, as in Runway:
//                the same-mechanism floor of ProcessLifecycle
//   posix_spawn  glibc's posix_spawn (CLONE_VM | CLONE_VFORK too), the pid written to cgroup.procs after it, exits
//                through a pidfd_open'd pidfd: a reference any program could use
// signal-rules and signal-least (analysis, not the floor of a target): the signal mode plus the per-app work that
// Runway's rules add for a one-process app: stdout and stderr captured through pipes, the child a session leader,
// its process tree read, its oom_score_adj written (1,000 to suspend, 0 to resume) and each signal sent to its
// process group. signal-rules reads and writes by path before each signal; signal-least makes the system calls
// Runway makes and nothing around them (lifecycle_rules.c). signal-least against signal is the rules' own price;
// Runway against signal-least is what Runway costs beyond them.
//
// Build and run (or `make probe` at the repository root):
//   gcc -O2 -o /tmp/lifecycle -IBenchmarks/Probes -ISources/CRunwayProcess/include Benchmarks/Probes/lifecycle*.c
//       Sources/CRunwayProcess/{spawn,spawn_child,spawn_limits,spawn_slots,spawn_vm,process,procstat}.c
//       $(pkg-config --cflags --libs libuv)         (one command)
//   /tmp/lifecycle [children=200] [signal|signal-rules|signal-least|freezer] [rounds=3] [libuv|runway|posix_spawn]
// Prints one JSON object per round with each phase's wall time in milliseconds, and this process's CPU time in each
// (`spawn_cpu` and so on, from getrusage), in ProcessLifecycle's shape.
// The freezer needs a writable cgroup v2 hierarchy (root, or a delegated subtree): the cgroup2 mount is read from
// /proc/self/mountinfo and this process's own cgroup from /proc/self/cgroup (the "0::" line).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "lifecycle.h"

enum { MAX_CHILDREN = 100000 };


static child_t *children;
static int count;
static int exited;
static int use_freezer;
// signal-rules and signal-least: the signal mode plus the per-app work Runway's rules add (see the top of the file);
// `least` for signal-least.
static int use_rules, least;
// How children are started (lifecycle.h): uv_spawn, Runway's runway_spawn, or posix_spawn.
static spawn_mechanism_t mechanism = SPAWN_LIBUV;

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "lifecycle: %s: %s\n", what, detail);
    exit(1);
}

int read_file(const char *path, char *buffer, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buffer, size - 1);
    close(fd);
    if (n < 0) return -1;
    buffer[n] = 0;
    return (int)n;
}

void write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) < 0) fail(path, strerror(errno));
    close(fd);
}

// The state letter of /proc/PID/stat (the field after the last ')'), or 0.
static char process_state(int pid) {
    char path[64], buffer[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (read_file(path, buffer, sizeof buffer) < 0) return 0;
    char *paren = strrchr(buffer, ')');
    return paren && paren[1] == ' ' ? paren[2] : 0;
}

// True when cgroup.events of the child's cgroup shows "frozen <want>".
static int is_frozen(child_t *child, int want) {
    char path[600], buffer[256], line[16];
    snprintf(path, sizeof path, "%s/cgroup.events", child->cgroup);
    if (read_file(path, buffer, sizeof buffer) < 0) fail(path, strerror(errno));
    snprintf(line, sizeof line, "frozen %d", want);
    return strstr(buffer, line) != NULL;
}

// The folder under which the probe makes its cgroups: <cgroup2 mount><own cgroup>/lifecycle-probe-<pid>.
static void cgroup_parent(char *parent, size_t size) {
    char *info = malloc(1 << 20), own[256] = "";
    char mount[256] = "";
    if (read_file("/proc/self/mountinfo", info, 1 << 20) < 0) fail("/proc/self/mountinfo", strerror(errno));
    for (char *line = strtok(info, "\n"); line; line = strtok(NULL, "\n")) {
        char *dash = strstr(line, " - cgroup2 ");
        if (!dash) continue;
        char point[256];
        if (sscanf(line, "%*s %*s %*s %*s %255s", point) == 1) snprintf(mount, sizeof mount, "%s", point);
        break;
    }
    if (!mount[0]) fail("freezer", "no cgroup2 mount in /proc/self/mountinfo");
    if (read_file("/proc/self/cgroup", info, 1 << 20) < 0) fail("/proc/self/cgroup", strerror(errno));
    char *unified = strstr(info, "0::");
    if (unified) sscanf(unified + 3, "%255[^\n]", own);
    if (strcmp(own, "/") == 0) own[0] = 0;
    snprintf(parent, size, "%s%s/lifecycle-probe-%d", mount, own, (int)getpid());
    free(info);
}

static void on_exit_cb(uv_process_t *process, int64_t status, int signal) {
    (void)status;
    (void)signal;
    child_t *child = process->data;
    child->exited = 1;
    exited += 1;
    uv_close((uv_handle_t *)process, NULL);
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buffer) {
    (void)handle;
    static char storage[4096];
    (void)suggested;
    *buffer = uv_buf_init(storage, sizeof storage);
}

static void on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buffer) {
    (void)buffer;
    if (n < 0) uv_close((uv_handle_t *)stream, NULL);
}

static double round_trip(uv_loop_t *loop, int round, const char *parent) {
    char *args[] = {"/bin/sleep", "1000", NULL};
    uv_stdio_container_t stdio[3] = {{.flags = UV_IGNORE}, {.flags = UV_IGNORE}, {.flags = UV_IGNORE}};
    uv_process_options_t options = {
        .exit_cb = on_exit_cb, .file = args[0], .args = args, .stdio_count = 3, .stdio = stdio};
    memset(children, 0, sizeof(child_t) * (size_t)count);
    exited = 0;
    double phases[4], cpu[4];

    double start = now_ms(), cpu_start = cpu_ms();
    for (int i = 0; i < count; i++) {
        child_t *child = &children[i];
        child->oom_fd = -1;
        if (use_freezer) {
            snprintf(child->cgroup, sizeof child->cgroup, "%s/c%d", parent, i);
            if (mkdir(child->cgroup, 0755) < 0) fail(child->cgroup, strerror(errno));
        }
        if (mechanism != SPAWN_LIBUV) {
            spawn_child(loop, child, mechanism, args, &exited, use_rules);
            if (use_rules) {
                uv_read_start((uv_stream_t *)&child->out, on_alloc, on_read);
                uv_read_start((uv_stream_t *)&child->err, on_alloc, on_read);
            }
            continue;
        }
        child->process.data = child;
        uv_stdio_container_t piped[3] = {{.flags = UV_IGNORE}, {.flags = UV_IGNORE}, {.flags = UV_IGNORE}};
        if (use_rules) {
            uv_pipe_init(loop, &child->out, 0);
            uv_pipe_init(loop, &child->err, 0);
            piped[1] = (uv_stdio_container_t){.flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream =
                                                  (uv_stream_t *)&child->out};
            piped[2] = (uv_stdio_container_t){.flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream =
                                                  (uv_stream_t *)&child->err};
            options.stdio = piped;
            options.flags = UV_PROCESS_DETACHED;
        }
        int error = uv_spawn(loop, &child->process, &options);
        options.stdio = stdio;
        if (use_rules) {
            uv_read_start((uv_stream_t *)&child->out, on_alloc, on_read);
            uv_read_start((uv_stream_t *)&child->err, on_alloc, on_read);
        }
        if (error) fail("uv_spawn", uv_strerror(error));
        child->pid = child->process.pid;
        if (use_freezer) {
            char path[600], pid[32];
            snprintf(path, sizeof path, "%s/cgroup.procs", child->cgroup);
            snprintf(pid, sizeof pid, "%d", child->pid);
            write_file(path, pid);
        }
    }
    phases[0] = now_ms() - start;
    cpu[0] = cpu_ms() - cpu_start;

    for (int phase = 1; phase <= 2; phase++) {
        int suspend = phase == 1;
        start = now_ms();
        cpu_start = cpu_ms();
        for (int i = 0; i < count; i++) {
            children[i].confirmed = 0;
            if (use_freezer) {
                char path[600];
                snprintf(path, sizeof path, "%s/cgroup.freeze", children[i].cgroup);
                write_file(path, suspend ? "1" : "0");
            } else if (use_rules) {
                if (least) {
                    least_oom(&children[i], suspend ? 1000 : 0);
                } else {
                    rules_before_signal(&children[i], suspend ? 1000 : 0);
                }
                if (kill(-children[i].pid, suspend ? SIGSTOP : SIGCONT) < 0) fail("kill", strerror(errno));
            } else if (kill(children[i].pid, suspend ? SIGSTOP : SIGCONT) < 0) {
                fail("kill", strerror(errno));
            }
        }
        for (int left = count; left > 0;) {
            for (int i = 0; i < count; i++) {
                child_t *child = &children[i];
                if (child->confirmed) continue;
                int done = use_freezer ? is_frozen(child, suspend)
                           : least     ? least_confirmed(child, suspend)
                                       : (process_state(child->pid) == 'T') == suspend;
                if (done) {
                    child->confirmed = 1;
                    left -= 1;
                }
            }
        }
        phases[phase] = now_ms() - start;
        cpu[phase] = cpu_ms() - cpu_start;
    }

    start = now_ms();
    cpu_start = cpu_ms();
    for (int i = 0; i < count; i++) {
        if (use_rules) {
            if (least) {
                least_tree(&children[i]);
            } else {
                rules_before_signal(&children[i], -1);
            }
            if (kill(-children[i].pid, SIGTERM) < 0) fail("kill", strerror(errno));
        } else if (mechanism != SPAWN_LIBUV) {
            if (kill(children[i].pid, SIGTERM) < 0) fail("kill", strerror(errno));
        } else {
            uv_process_kill(&children[i].process, SIGTERM);
        }
    }
    while (exited < count) uv_run(loop, UV_RUN_ONCE);
    uv_run(loop, UV_RUN_NOWAIT);  // the close callbacks
    phases[3] = now_ms() - start;
    cpu[3] = cpu_ms() - cpu_start;
    if (use_freezer) {
        for (int i = 0; i < count; i++) rmdir(children[i].cgroup);
    }

    double total = phases[0] + phases[1] + phases[2] + phases[3];
    printf(
        "{\"tool\": \"c-%s-%s\", \"apps\": %d, \"round\": %d, \"spawn\": %.2f, \"suspend\": %.2f, "
        "\"resume\": %.2f, \"terminate\": %.2f, \"total\": %.2f, \"spawn_cpu\": %.2f, \"suspend_cpu\": %.2f, "
        "\"resume_cpu\": %.2f, \"terminate_cpu\": %.2f}\n",
        spawn_mechanism_name(mechanism),
        use_freezer ? "freezer" : least ? "signal-least" : use_rules ? "signal-rules" : "signal", count, round,
        phases[0], phases[1], phases[2], phases[3], total, cpu[0], cpu[1], cpu[2], cpu[3]);
    fflush(stdout);
    return total;
}

int main(int argc, char **argv) {
    count = argc > 1 ? atoi(argv[1]) : 200;
    use_freezer = argc > 2 && strcmp(argv[2], "freezer") == 0;
    least = argc > 2 && strcmp(argv[2], "signal-least") == 0;
    use_rules = least || (argc > 2 && strcmp(argv[2], "signal-rules") == 0);
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    int named = argc > 4 ? spawn_mechanism_named(argv[4]) : SPAWN_LIBUV;
    mechanism = named < 0 ? SPAWN_LIBUV : (spawn_mechanism_t)named;
    if (count < 1 || count > MAX_CHILDREN || rounds < 1 || named < 0 ||
        (argc > 2 && !use_freezer && !use_rules && strcmp(argv[2], "signal")) ||
        (least && mechanism == SPAWN_LIBUV))  // signal-least confirms through pidfds, which uv_spawn does not give
        fail("usage", "lifecycle [children=200 (1 to 100000)] [signal|signal-rules|signal-least|freezer] [rounds=3] "
                      "[libuv|runway|posix_spawn] (signal-least: runway or posix_spawn)");
    children = calloc((size_t)count, sizeof(child_t));
    char parent[400] = "";
    if (use_freezer) {
        cgroup_parent(parent, sizeof parent);
        if (mkdir(parent, 0755) < 0) fail(parent, strerror(errno));
    }
    uv_loop_t *loop = uv_default_loop();
    for (int round = 0; round < rounds; round++) round_trip(loop, round, parent);
    if (use_freezer) rmdir(parent);
    uv_loop_close(loop);
    free(children);
    return 0;
}
