// The per-app work of Runway's rules for a one-process app in signal mode, done by the probe itself: what the modes
// signal-rules and signal-least add to the floor (Probes/lifecycle.c).
//   signal-rules  before each signal the process's stat and its main thread's children file read by path, its
//                 oom_score_adj opened and written by path (not before SIGCONT: 0)
//   signal-least  the same rules at the least they cost, with the system calls Runway makes and nothing around
//                 them: a suspension is confirmed by the kernel's wait on the pidfd (WSTOPPED, WNOWAIT) and then
//                 the process's tree (the link count of /proc/PID/task and the children file); a resumption by that
//                 wait (WCONTINUED); the tree read once more before SIGTERM; oom_score_adj opened at its first
//                 write and kept open until the exit
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "CRunwayProcess.h"
#include "lifecycle.h"

void rules_before_signal(child_t *child, int oom) {
    char path[96], buffer[512];
    snprintf(path, sizeof path, "/proc/%d/stat", child->pid);
    (void)read_file(path, buffer, sizeof buffer);
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", child->pid, child->pid);
    (void)read_file(path, buffer, sizeof buffer);
    if (oom >= 0) {
        char value[16];
        snprintf(path, sizeof path, "/proc/%d/oom_score_adj", child->pid);
        snprintf(value, sizeof value, "%d", oom);
        write_file(path, value);
    }
}

void least_oom(child_t *child, int value) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/oom_score_adj", child->pid);
    if (child->oom_fd < 0) child->oom_fd = open(path, O_WRONLY | O_CLOEXEC);
    char text[16];
    int length = snprintf(text, sizeof text, "%d", value);
    // A write that fails would leave out work Runway does: the run says so, as signal-rules does.
    if (child->oom_fd < 0 || pwrite(child->oom_fd, text, (size_t)length, 0) != length) {
        fprintf(stderr, "lifecycle: %s: %s\n", path, strerror(errno));
    }
}

void least_tree(child_t *child) {
    int children[16];
    int threads = runway_proc_thread_count(child->pid);
    (void)runway_proc_children(child->pid, threads == 1, children, 16);
}

int least_confirmed(child_t *child, int suspend) {
    // runway_pidfd_wait_state: 1 stopped, 3 continued (lifecycle.c polls until the kernel reports it).
    if (runway_pidfd_wait_state(child->pidfd) != (suspend ? 1 : 3)) return 0;
    if (suspend) least_tree(child);
    return 1;
}

void least_exited(child_t *child) {
    if (child->oom_fd >= 0) close(child->oom_fd);
    child->oom_fd = -1;
}
