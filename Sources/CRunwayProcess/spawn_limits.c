// The setrlimit values a spawned child applies to itself between its clone and its exec (launchd's
// SoftResourceLimits / HardResourceLimits). Async-signal-safe calls only.
#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>

#include "spawn_internal.h"

/// The `RLIMIT_*` numbers by launchd key: Core, CPU, Data, FileSize, MemoryLock, NumberOfFiles, NumberOfProcesses,
/// ResidentSetSize, Stack.
static const int runway_rlimit_resources[9] = {
    RLIMIT_CORE, RLIMIT_CPU, RLIMIT_DATA, RLIMIT_FSIZE, RLIMIT_MEMLOCK, RLIMIT_NOFILE, RLIMIT_NPROC, RLIMIT_RSS,
    RLIMIT_STACK,
};

int runway_rlimit_resource(int index) { return runway_rlimit_resources[index % 9]; }

/// A soft value alone above the inherited hard one raises the hard one to it (which needs CAP_SYS_RESOURCE); a hard
/// value alone below the inherited soft one lowers the soft one to it.
int runway_apply_rlimits(const struct runway_rlimit *limits, int count, int *failed) {
    for (int i = 0; i < count; i++) {
        struct rlimit value;
        *failed = i;
        if (getrlimit(limits[i].resource, &value) != 0) return -1;
        if (limits[i].given & RUNWAY_RLIMIT_SOFT) value.rlim_cur = (rlim_t)limits[i].soft;
        if (limits[i].given & RUNWAY_RLIMIT_HARD) value.rlim_max = (rlim_t)limits[i].hard;
        if (!(limits[i].given & RUNWAY_RLIMIT_HARD) && value.rlim_cur > value.rlim_max) value.rlim_max = value.rlim_cur;
        if (!(limits[i].given & RUNWAY_RLIMIT_SOFT) && value.rlim_cur > value.rlim_max) value.rlim_cur = value.rlim_max;
        if (setrlimit(limits[i].resource, &value) != 0) return -1;
    }
    return 0;
}
