// libFuzzer target: the /proc parsers of CRunwayProcess (procstat.c) on any bytes: `runway_proc_stat` as the signal
// mechanism reads `/proc/PID/stat` to confirm a stop, and the `children` list reader of the supervisor's process
// scan. One input is the file's text. Built with clang -fsanitize=fuzzer,address,undefined (`make fuzz`).
//
// procstat.c is included, not linked, to reach its static `children` reader. Each input goes to a memfd read through
// its /proc/self/fd path, so the parsers run on a real read, as they do on /proc. Beyond "no crash": the children
// count is the number of digit runs in the text, whatever the capacity, and a parsed stat has a state.
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../Sources/CRunwayProcess/procstat.c"

static int file = -1;
static char file_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    file = memfd_create("runway-fuzz-proc", MFD_CLOEXEC);
    if (file < 0) abort();
    snprintf(file_path, sizeof file_path, "/proc/self/fd/%d", file);
    return 0;
}

static size_t digit_runs(const uint8_t *data, size_t size) {
    size_t runs = 0;
    for (size_t i = 0; i < size; i++) {
        int digit = data[i] >= '0' && data[i] <= '9';
        int previous = i > 0 && data[i - 1] >= '0' && data[i - 1] <= '9';
        if (digit && !previous) runs += 1;
    }
    return runs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (ftruncate(file, 0) != 0 || pwrite(file, data, size, 0) != (ssize_t)size) abort();

    struct runway_proc_stat stat = {0};
    int result = runway_proc_stat(0, file_path, &stat);
    if (result == 0 && stat.state == 0) abort();
    if (result != 0 && result != -EINVAL) abort();

    int pids[4];
    int capacity = size > 0 ? data[0] % 5 : 0;
    int count = runway_proc_children_file(file_path, pids, capacity, 0);
    if (count < 0 || (size_t)count != digit_runs(data, size)) abort();
    return 0;
}
