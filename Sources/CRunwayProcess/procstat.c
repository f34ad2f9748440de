// `/proc/PID/stat` read and parsed in C, without allocating: the signal mode's suspend, resume and confirmation read
// it several times per app, and a read and split in Swift cost more than the kernel's answer. Also the children and
// thread count of a process, for the supervisor's scan of an app's processes.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "CRunwayProcess.h"

/// Reads and parses `/proc/PID/stat` (`path`, or "/proc/<pid>/stat" when `path` is NULL). Fields are counted
/// from the last ')' (the command name may hold spaces and parentheses). Returns 0, -errno when the file cannot
/// be read (-ENOENT: no such process), or -EINVAL when it does not parse. Any thread.
int runway_proc_stat(int pid, const char *path, struct runway_proc_stat *out) {
    char own_path[48];
    if (path == NULL) {
        snprintf(own_path, sizeof own_path, "/proc/%d/stat", pid);
        path = own_path;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    char buffer[1024];
    ssize_t count;
    do {
        count = read(fd, buffer, sizeof buffer - 1);
    } while (count < 0 && errno == EINTR);
    int error = errno;
    close(fd);
    if (count < 0) return -error;
    buffer[count] = 0;
    char *field = strrchr(buffer, ')');
    if (field == NULL) return -EINVAL;
    field += 1;
    // Field 3 is the first after ')'; walk the space-separated fields up to 22.
    uint64_t values[23] = {0};
    char state = 0;
    int number = 2;
    while (*field != 0 && number < 22) {
        while (*field == ' ') field++;
        if (*field == 0 || *field == '\n') break;
        number += 1;
        if (number == 3) {
            state = *field;
            while (*field != 0 && *field != ' ') field++;
            continue;
        }
        int negative = *field == '-';
        if (negative) field++;
        uint64_t value = 0;
        if (*field < '0' || *field > '9') return -EINVAL;
        while (*field >= '0' && *field <= '9') value = value * 10 + (uint64_t)(*field++ - '0');
        if (*field != ' ' && *field != '\n' && *field != 0) return -EINVAL;
        // Negated as unsigned (modulo 2^64, so "-1" is UINT64_MAX): negating INT64_MIN as a signed number is undefined.
        values[number] = negative ? (uint64_t)0 - value : value;
    }
    if (number < 22 || state == 0) return -EINVAL;
    out->state = state;
    out->parent = (int)values[4];
    out->process_group = (int)values[5];
    out->session = (int)values[6];
    out->flags = (unsigned int)values[9];
    out->threads = (int)values[20];
    out->start_time = values[22];
    return 0;
}

/// Appends the pids listed in `path` (a `children` file) to `out` (at most `capacity` in all) and returns the new
/// count, or -1 when the file cannot be opened.
static int runway_proc_children_file(const char *path, int *out, int capacity, int count) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    // The list may be longer than the buffer: a number cut at the end of one read goes on in the next.
    char buffer[4096];
    long value = -1;
    for (;;) {
        ssize_t got = read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        for (ssize_t i = 0; i < got; i++) {
            char c = buffer[i];
            if (c >= '0' && c <= '9') {
                // Saturates at INT_MAX: the kernel writes pids of at most 7 digits, and a longer run of digits must
                // not overflow `value` (undefined); a pid of INT_MAX names no process, so the scan skips it.
                if (value < 0) value = 0;
                value = value > (INT_MAX - 9) / 10 ? INT_MAX : value * 10 + (c - '0');
            } else if (value >= 0) {
                if (count < capacity) out[count] = (int)value;
                count += 1;
                value = -1;
            }
        }
    }
    if (value >= 0) {
        if (count < capacity) out[count] = (int)value;
        count += 1;
    }
    close(fd);
    return count;
}

/// The number of threads of `pid` from the link count of `/proc/PID/task` (two plus one per thread), without
/// reading `/proc/PID/stat` (a `stat` of a cached entry costs a sixth of that read). -errno when it
/// cannot be read. Any thread.
int runway_proc_thread_count(int pid) {
    char path[48];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    struct stat status;
    if (stat(path, &status) != 0) return -errno;
    return status.st_nlink > 2 ? (int)(status.st_nlink - 2) : -ESRCH;
}

/// The pids of `pid`'s children, as its threads' `/proc/PID/task/TID/children` list them (zombies included),
/// written to `out` (at most `capacity`). With `single_thread` non-zero (the caller read one thread in its stat)
/// only the main thread's file is read, without listing `/proc/PID/task`. Returns how many there are (more than
/// `capacity` when `out` was too small: call again with room for that many), or -errno when the process's task
/// folder cannot be read. Any thread.
int runway_proc_children(int pid, int single_thread, int *out, int capacity) {
    char path[96];
    if (single_thread) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", pid, pid);
        int count = runway_proc_children_file(path, out, capacity, 0);
        if (count >= 0) return count;  // else list the tasks (the main thread may have exited: a zombie leader)
    }
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (tasks == NULL) return -errno;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        // A task's name is its tid (at most 10 digits): the precision only bounds the copy for the compiler.
        snprintf(path, sizeof path, "/proc/%d/task/%.20s/children", pid, entry->d_name);
        int next = runway_proc_children_file(path, out, capacity, count);
        if (next >= 0) count = next;
    }
    closedir(tasks);
    return count;
}

int runway_proc_own_children(int *out, int capacity, int *caller_skipped) {
    int pid = getpid();
    long caller = syscall(SYS_gettid);
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (tasks == NULL) return -errno;
    int count = 0;
    int caller_seen = 0;
    int alive_before_caller = 0;
    *caller_skipped = 0;
    struct dirent *entry;
    // /proc/PID/task lists the threads in the kernel's order of the thread list, the order in which it looks for
    // the first live thread to give an orphan to.
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        long tid = 0;
        for (const char *digit = entry->d_name; *digit >= '0' && *digit <= '9' && tid < INT_MAX / 10; digit++) {
            tid = tid * 10 + (*digit - '0');
        }
        if (tid == caller) {
            caller_seen = 1;
            if (alive_before_caller) {
                *caller_skipped = 1;
                continue;
            }
        } else if (!caller_seen && !alive_before_caller) {
            // A zombie (a main thread that called pthread_exit) or dead thread gets no orphans.
            struct runway_proc_stat stat;
            snprintf(path, sizeof path, "/proc/%d/task/%ld/stat", pid, tid);
            if (runway_proc_stat(pid, path, &stat) == 0 && stat.state != 'Z' && stat.state != 'X') {
                alive_before_caller = 1;
            }
        }
        snprintf(path, sizeof path, "/proc/%d/task/%ld/children", pid, tid);
        int next = runway_proc_children_file(path, out, capacity, count);
        if (next >= 0) count = next;
    }
    closedir(tasks);
    return count;
}

long long runway_file_system_type(int fd) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -(long long)errno;
    return (long long)info.f_type;
}

/// Opens `/proc/PID/environ` as the process's owner: the kernel lets a reader whose file-system uid and gid are
/// the process's (real, effective and saved alike) read it without CAP_SYS_PTRACE. This thread's file-system ids
/// are set to the owner of `/proc/PID` for the `open` and restored before returning (setfsuid and setfsgid change
/// the calling thread only; setting them needs CAP_SETUID and CAP_SETGID, without which they stay as they were
/// and the open is made as the caller). Returns the descriptor or -errno. Any thread.
int runway_open_environ_as_owner(int pid) {
    char path[48];
    snprintf(path, sizeof path, "/proc/%d", pid);
    struct stat owner;
    if (stat(path, &owner) != 0) return -errno;
    snprintf(path, sizeof path, "/proc/%d/environ", pid);
    int previous_gid = setfsgid(owner.st_gid);
    int previous_uid = setfsuid(owner.st_uid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int error = fd < 0 ? errno : 0;
    setfsuid((uid_t)previous_uid);
    setfsgid((gid_t)previous_gid);
    return fd < 0 ? -error : fd;
}
