// The floor under any event loop's expiration lateness on this machine: one thread, one timerfd armed at an
// absolute CLOCK_MONOTONIC deadline, epoll_wait, nothing else. 10,000 seeded random deadlines over 2 s (the
// shape of LatenessComparison); lateness = the clock read on return from epoll_wait - the deadline.
//
// Build and run, at the normal policy and at SCHED_FIFO (root or CAP_SYS_NICE):
//   gcc -O2 -o /tmp/timerfd_wakeup Benchmarks/Probes/timerfd_wakeup.c
//   /tmp/timerfd_wakeup; chrt -f 10 /tmp/timerfd_wakeup
// Prints p50, p99, max and the five worst, in microseconds.
//
// Options, as LatenessComparison's: --count N (default 10000), --spread-seconds S (default 2), --even (evenly spaced
// deadlines, one wake-up each: for counting per deadline under callgrind or strace, Scripts/per_deadline.py), and
// --slice-us U: ask the kernel for an EEVDF slice of U microseconds for this thread (sched_setattr's sched_runtime
// at SCHED_OTHER; Linux >= 6.12, no privilege needed), to compare with a loop thread given the same slice.
// window_begin and window_end mark the window from the first deadline served to the last, for callgrind
// (--zero-before, --dump-before) and strace.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum { MAXIMUM_COUNT = 100000 };

/// Linux's struct sched_attr (the first 48 bytes: the fields up to sched_period).
struct slice_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

__attribute__((noinline)) void window_begin(void) { fputs("lateness window begin\n", stderr); }
__attribute__((noinline)) void window_end(void) { fputs("lateness window end\n", stderr); }

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int ascending(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    static int64_t deadlines[MAXIMUM_COUNT], lateness[MAXIMUM_COUNT];
    int count = 10000, even = 0;
    double spread = 2e9;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--even") == 0) {
            even = 1;
        } else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) {
            count = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--spread-seconds") == 0 && i + 1 < argc) {
            spread = atof(argv[++i]) * 1e9;
        } else if (strcmp(argv[i], "--slice-us") == 0 && i + 1 < argc) {
            struct slice_attr attr = { .size = sizeof attr, .runtime = strtoull(argv[++i], NULL, 10) * 1000 };
            if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0) { perror("sched_setattr"); return 1; }
        } else {
            fprintf(stderr, "usage: %s [--count N] [--spread-seconds S] [--even] [--slice-us U]\n", argv[0]);
            return 64;
        }
    }
    if (count < 1 || count > MAXIMUM_COUNT || spread < 1e9) {
        fprintf(stderr, "--count is 1 to %d and --spread-seconds at least 1\n", MAXIMUM_COUNT);
        return 64;
    }
    srand(2026);
    int64_t start = now_ns() + 100000000LL;
    for (int i = 0; i < count; i++)
        deadlines[i] = start + (even ? (int64_t)(spread * i / count) : (int64_t)((double)rand() / RAND_MAX * spread));
    qsort(deadlines, count, sizeof deadlines[0], ascending);

    int timer = timerfd_create(CLOCK_MONOTONIC, 0), poller = epoll_create1(0);
    if (timer < 0 || poller < 0) { perror("timerfd_create/epoll_create1"); return 1; }
    struct epoll_event interest = { .events = EPOLLIN };
    epoll_ctl(poller, EPOLL_CTL_ADD, timer, &interest);

    for (int next = 0; next < count;) {
        if (next == 1) window_begin(); // After the first deadline, as LatenessComparison marks it.
        if (now_ns() < deadlines[next]) {
            struct itimerspec when = { .it_value = { deadlines[next] / 1000000000LL, deadlines[next] % 1000000000LL } };
            timerfd_settime(timer, TFD_TIMER_ABSTIME, &when, NULL);
            struct epoll_event ready;
            uint64_t expirations;
            epoll_wait(poller, &ready, 1, -1);
            if (read(timer, &expirations, sizeof expirations) < 0) { perror("read"); return 1; }
        }
        int64_t woke = now_ns();
        while (next < count && deadlines[next] <= woke) { lateness[next] = woke - deadlines[next]; next++; }
    }
    window_end();
    qsort(lateness, count, sizeof lateness[0], ascending);
    printf("p50=%.1f p99=%.1f max=%.1f us; worst five:", lateness[count / 2] / 1e3, lateness[count * 99 / 100] / 1e3,
           lateness[count - 1] / 1e3);
    for (int i = 1; i <= 5; i++) printf(" %.0f", lateness[count - i] / 1e3);
    printf("\n");
    return 0;
}
