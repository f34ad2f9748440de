// Descriptor calls of the supervisor: the table grown ahead, close-on-exec everywhere, and the close-on-exec
// socketpair and pipe its children's channels and output go through.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "CRunwayProcess.h"

#ifndef O_PATH
#define O_PATH 010000000  // <fcntl.h> shows it only under _GNU_SOURCE.
#endif

/// CLOSE_RANGE_CLOEXEC from <linux/close_range.h> (Linux 5.11), which older headers lack.
#define RUNWAY_CLOSE_RANGE_CLOEXEC (1U << 2)

/// Linux grows a table shared by several threads only after an RCU grace period (`synchronize_rcu` in
/// `expand_fdtable`), milliseconds each time it doubles; done once ahead, the launches that open the descriptors do
/// not wait for it. The table grows by duplicating a descriptor of this process's own (an O_PATH one of "/") to the
/// lowest free one from `count - 1` up and closing both: no open descriptor is touched, and the table never shrinks.
/// Not a copy of 0, 1 or 2: closing any descriptor of a file releases the POSIX record locks this process holds on
/// it, such as a daemon's lock on a pid file opened as descriptor 0; an O_PATH descriptor's close releases none.
int runway_reserve_descriptors(int count) {
    if (count < 1) return 0;
    int own = open("/", O_PATH | O_CLOEXEC);
    if (own < 0) return -errno;
    int copy = fcntl(own, F_DUPFD_CLOEXEC, count - 1);
    int error = copy < 0 ? errno : 0;
    if (copy >= 0) close(copy);
    close(own);
    return -error;
}

int runway_mark_descriptors_cloexec(int first) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, ~0U, RUNWAY_CLOSE_RANGE_CLOEXEC) == 0) return 0;
    if (errno != ENOSYS && errno != EINVAL) return -errno;
#endif
    DIR *directory = opendir("/proc/self/fd");
    if (directory == NULL) return -errno;
    int own = dirfd(directory);
    int status = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int fd = atoi(entry->d_name);
        if (fd < first || fd == own) continue;
        int flags = fcntl(fd, F_GETFD);
        if (flags >= 0 && (flags & FD_CLOEXEC) == 0 && fcntl(fd, F_SETFD, flags | FD_CLOEXEC) != 0) status = -errno;
    }
    closedir(directory);
    return status;
}

int runway_socketpair(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0 ? 0 : -errno;
}

int runway_pipe_cloexec(int fds[2]) { return syscall(SYS_pipe2, fds, O_CLOEXEC) == 0 ? 0 : -errno; }

int runway_socket_unread_by_peer(int fd) {
    int unread = 0;
    return ioctl(fd, TIOCOUTQ, &unread) == 0 ? unread : -errno;
}
