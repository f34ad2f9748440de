// The spawn's descriptor slots: low descriptors through which a child that shares this process's descriptor table
// (CLONE_FILES) gets its 0-3. The parent fills `fds[1..3]` with the child's stdout, stderr and channel (`fds[0]` is
// /dev/null, the child's stdin, for good) and clones; the child's first act is `close_range(end, ~0,
// CLOSE_RANGE_UNSHARE)`, which gives it a table of its own holding only the descriptors below `end` (the slots and
// the few this process had open before them), so nothing else is copied into it nor closed by its exec. A copied
// table costs the parent a reference per open descriptor at the clone, and the child a close per descriptor at its
// exec: about 600 of each at 200 apps (three per running app), 6,000 at 2,000. The parent refills the slots with
// /dev/null once the clone returns. One set of slots per process, taken under `lock` for the spawn.
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn_internal.h"

static pthread_mutex_t runway_spawn_slots_lock = PTHREAD_MUTEX_INITIALIZER;
static struct runway_spawn_slots runway_spawn_slots_state = {{-1, -1, -1, -1}, 0};
/// 0 untried (or the descriptors could not be opened yet), 1 ready, -1 unusable (no close_range): spawns copy the
/// table.
static int runway_spawn_slots_status = 0;

/// Under `runway_spawn_slots_lock`: the slots, opened at the first call that can (the lowest free descriptors from
/// 4 up). NULL when unusable, or when no descriptor was free for them: that spawn copies the table and the next one
/// tries again, so that one EMFILE at the first spawn does not turn the slots off for the process's life.
static struct runway_spawn_slots *runway_spawn_slots_prepare(void) {
    struct runway_spawn_slots *slots = &runway_spawn_slots_state;
    if (runway_spawn_slots_status != 0) return runway_spawn_slots_status > 0 ? slots : NULL;
#ifdef SYS_close_range
    // close_range and CLOSE_RANGE_UNSHARE came together (Linux 5.9); an empty range is a harmless probe.
    if (syscall(SYS_close_range, ~0U, ~0U, 0) != 0) {
        runway_spawn_slots_status = -1;
        return NULL;
    }
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) return NULL;
    int highest = 0;
    for (int i = 0; i < 4; i++) {
        slots->fds[i] = fcntl(null_fd, F_DUPFD_CLOEXEC, 4);
        if (slots->fds[i] < 0) {
            for (int j = 0; j < i; j++) {
                close(slots->fds[j]);
                slots->fds[j] = -1;
            }
            close(null_fd);
            return NULL;
        }
        if (slots->fds[i] > highest) highest = slots->fds[i];
    }
    close(null_fd);
    slots->end = (unsigned)highest + 1;
    runway_spawn_slots_status = 1;
    return slots;
#else
    runway_spawn_slots_status = -1;
    return NULL;
#endif
}

int runway_spawn_slot(int index) { return runway_spawn_slots_state.fds[index & 3]; }

void runway_spawn_slots_reset(void) {
    pthread_mutex_lock(&runway_spawn_slots_lock);
    if (runway_spawn_slots_status > 0) {
        for (int i = 0; i < 4; i++) close(runway_spawn_slots_state.fds[i]);
    }
    for (int i = 0; i < 4; i++) runway_spawn_slots_state.fds[i] = -1;
    runway_spawn_slots_state.end = 0;
    runway_spawn_slots_status = 0;
    pthread_mutex_unlock(&runway_spawn_slots_lock);
}

/// Puts /dev/null back in the slots that held the child's descriptors (the parent's references to them go).
static void runway_spawn_slots_clear(struct runway_spawn_slots *slots) {
    for (int i = 1; i < 4; i++) (void)syscall(SYS_dup3, slots->fds[0], slots->fds[i], O_CLOEXEC);
}

struct runway_spawn_slots *runway_spawn_slots_acquire(const struct runway_spawn_request *request) {
    pthread_mutex_lock(&runway_spawn_slots_lock);
    struct runway_spawn_slots *slots = runway_spawn_slots_prepare();
    if (slots == NULL) return NULL;
    int filled = syscall(SYS_dup3, request->stdout_fd, slots->fds[1], O_CLOEXEC) >= 0 &&
                 syscall(SYS_dup3, request->stderr_fd, slots->fds[2], O_CLOEXEC) >= 0 &&
                 (request->channel_fd < 0 || syscall(SYS_dup3, request->channel_fd, slots->fds[3], O_CLOEXEC) >= 0);
    if (filled) return slots;
    runway_spawn_slots_clear(slots);
    return NULL;
}

void runway_spawn_slots_release(struct runway_spawn_slots *slots) {
    if (slots != NULL) runway_spawn_slots_clear(slots);
    pthread_mutex_unlock(&runway_spawn_slots_lock);
}
