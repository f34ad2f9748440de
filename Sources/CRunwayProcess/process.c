// Waiting for, reaping and signalling processes: the pidfd calls (raw system calls, which glibc wraps only in
// recent versions), waitid with flags Swift's Glibc overlay does not show, and the SIGCHLD disposition.
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "CRunwayProcess.h"

/// P_PIDFD of <linux/wait.h> (Linux 5.4), which older headers lack.
#define RUNWAY_P_PIDFD 3

int runway_pidfd_reap(int pidfd, int *exited, int *status) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (syscall(SYS_waitid, RUNWAY_P_PIDFD, pidfd, &info, WEXITED | WNOHANG, NULL) != 0) return -errno;
    if (info.si_pid == 0) return 0;
    *exited = info.si_code == CLD_EXITED ? 1 : 0;
    *status = info.si_status;
    return 1;
}

int runway_pidfd_wait_state(int pidfd) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (syscall(SYS_waitid, RUNWAY_P_PIDFD, pidfd, &info, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT, NULL) !=
        0)
        return -errno;
    if (info.si_pid == 0) return 0;
    return info.si_code == CLD_STOPPED ? 1 : info.si_code == CLD_CONTINUED ? 3 : 2;
}

int runway_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, pid, 0);
    return fd >= 0 ? (int)fd : -errno;
#else
    (void)pid;
    return -ENOSYS;
#endif
}

int runway_pidfd_send_signal(int pidfd, int signal) {
#ifdef SYS_pidfd_send_signal
    return syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0) == 0 ? 0 : -errno;
#else
    (void)pidfd;
    (void)signal;
    return -ENOSYS;
#endif
}

int runway_kill(int pid, int signal) { return kill(pid, signal) == 0 ? 0 : -errno; }

int runway_peek_exited_child(void) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -errno;
    return info.si_pid;
}

int runway_reap_nonblocking(int pid) {
    int status = 0;
    int result = waitpid(pid, &status, WNOHANG);
    return result >= 0 ? result : -errno;
}

int runway_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -errno; }

int runway_sigchld_without_stops(void) {
    struct sigaction action;
    if (sigaction(SIGCHLD, NULL, &action) != 0) return -errno;
    int handled = (action.sa_flags & SA_SIGINFO) ? action.sa_sigaction != NULL
                                                 : (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN);
    if (!handled) return 0;
    if (action.sa_flags & SA_NOCLDSTOP) return 1;
    action.sa_flags |= SA_NOCLDSTOP;
    return sigaction(SIGCHLD, &action, NULL) == 0 ? 1 : -errno;
}

int runway_sigchld_skips_stops(void) {
    struct sigaction action;
    if (sigaction(SIGCHLD, NULL, &action) != 0) return -errno;
    return (action.sa_flags & SA_NOCLDSTOP) ? 1 : 0;
}
