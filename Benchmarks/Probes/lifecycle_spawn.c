// The spawn mechanisms of Probes/lifecycle.c other than uv_spawn, each child's exit watched as Runway watches it:
// a uv_poll_t on its pidfd, readable once it exits, then waitid(P_PIDFD, WEXITED | WNOHANG) reaps it
// (Sources/RunwayProcesses/ChildProcess+Exit.swift). `runway` calls Runway's own runway_spawn, compiled from
// Sources/CRunwayProcess into the probe, so that the floor starts children exactly as Runway does.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "CRunwayProcess.h"
#include "lifecycle.h"

extern char **environ;

static int *exited_count;

int spawn_mechanism_named(const char *name) {
    if (strcmp(name, "libuv") == 0) return SPAWN_LIBUV;
    if (strcmp(name, "runway") == 0) return SPAWN_RUNWAY;
    if (strcmp(name, "posix_spawn") == 0) return SPAWN_POSIX;
    return -1;
}

const char *spawn_mechanism_name(spawn_mechanism_t mechanism) {
    return mechanism == SPAWN_RUNWAY ? "runway-spawn" : mechanism == SPAWN_POSIX ? "posix-spawn" : "libuv";
}

static void die(const char *what, int error) {
    fprintf(stderr, "lifecycle: %s: %s\n", what, strerror(error));
    exit(1);
}

static void on_pidfd_readable(uv_poll_t *poll, int status, int events) {
    (void)status;
    (void)events;
    child_t *child = poll->data;
    int normally = 0, code = 0;
    int reaped = runway_pidfd_reap(child->pidfd, &normally, &code);
    if (reaped == 0) return;  // not exited yet
    if (reaped < 0) die("waitid", -reaped);
    uv_close((uv_handle_t *)poll, NULL);
    close(child->pidfd);
    child->pidfd = -1;
    least_exited(child);
    child->exited = 1;
    *exited_count += 1;
}

// The descriptor every child gets as stdout and stderr.
static int dev_null(void) {
    static int fd = -1;
    if (fd < 0) fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (fd < 0) die("/dev/null", errno);
    return fd;
}

static void spawn_runway(child_t *child, char *const argv[], const int outputs[2]) {
    int cgroup_fd = -1;
    if (child->cgroup[0]) {
        cgroup_fd = open(child->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cgroup_fd < 0) die(child->cgroup, errno);
    }
    struct runway_spawn_request request;
    memset(&request, 0, sizeof request);
    request.path = argv[0];
    request.argv = argv;
    request.envp = environ;
    request.cgroup_fd = cgroup_fd;
    request.stdout_fd = outputs[0];
    request.stderr_fd = outputs[1];
    request.channel_fd = -1;
    struct runway_spawn_result result;
    int status = runway_spawn(&request, &result);
    if (cgroup_fd >= 0) close(cgroup_fd);
    if (status != 0) die("runway_spawn", -status);
    if (!result.shared_memory || (child->cgroup[0] && !result.used_clone3))
        die("runway_spawn", ENOTSUP);  // not the mechanism this floor is meant to measure
    child->pid = result.pid;
    child->pidfd = result.pidfd;
}

static void spawn_posix(child_t *child, char *const argv[], const int outputs[2], int session) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, outputs[0], 1);
    posix_spawn_file_actions_adddup2(&actions, outputs[1], 2);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    if (session) posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
    int error = posix_spawn(&pid, argv[0], &actions, &attributes, argv, environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    if (error) die("posix_spawn", error);
    child->pid = pid;
    child->pidfd = runway_pidfd_open(pid);
    if (child->pidfd < 0) die("pidfd_open", -child->pidfd);
    if (child->cgroup[0]) {
        char path[600], text[32];
        snprintf(path, sizeof path, "%s/cgroup.procs", child->cgroup);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        int length = snprintf(text, sizeof text, "%d", pid);
        if (fd < 0 || write(fd, text, (size_t)length) < 0) die(path, errno);
        close(fd);
    }
}

// With `pipes`: two close-on-exec pipes, write ends in `outputs` (closed by the caller after the spawn), read ends
// opened as child->out and child->err. Without: /dev/null twice.
static void open_outputs(uv_loop_t *loop, child_t *child, int pipes, int outputs[2]) {
    if (!pipes) {
        outputs[0] = outputs[1] = dev_null();
        return;
    }
    uv_pipe_t *ends[2] = {&child->out, &child->err};
    for (int i = 0; i < 2; i++) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) die("pipe2", errno);
        outputs[i] = fds[1];
        int status = uv_pipe_init(loop, ends[i], 0);
        if (status == 0) status = uv_pipe_open(ends[i], fds[0]);
        if (status != 0) die("uv_pipe_open", -status);
    }
}

void spawn_child(uv_loop_t *loop, child_t *child, spawn_mechanism_t mechanism, char *const argv[], int *exited,
                 int pipes) {
    exited_count = exited;
    int outputs[2];
    open_outputs(loop, child, pipes, outputs);
    if (mechanism == SPAWN_RUNWAY) {
        spawn_runway(child, argv, outputs);
    } else {
        spawn_posix(child, argv, outputs, pipes);
    }
    if (pipes) {
        close(outputs[0]);
        close(outputs[1]);
    }
    child->exit_poll.data = child;
    int status = uv_poll_init(loop, &child->exit_poll, child->pidfd);
    if (status == 0) status = uv_poll_start(&child->exit_poll, UV_READABLE, on_pidfd_readable);
    if (status != 0) die("uv_poll on a pidfd", -status);
}
