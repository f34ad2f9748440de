// The floor under any event loop's expiration lateness on this machine: one thread, one timerfd armed at an
// absolute CLOCK_MONOTONIC deadline, epoll_wait, nothing else. 10,000 seeded random deadlines over 2 s (the
// shape of LatenessComparison); lateness = the clock read on return from epoll_wait - the deadline.
//
// Build and run, at the normal policy and at SCHED_FIFO (root or CAP_SYS_NICE):
//   gcc -O2 -o /tmp/timerfd_wakeup Benchmarks/Probes/timerfd_wakeup.c
//   /tmp/timerfd_wakeup; chrt -f 10 /tmp/timerfd_wakeup
// Prints p50, p99, max and the five worst, in microseconds.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum { COUNT = 10000 };

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int ascending(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(void) {
    static int64_t deadlines[COUNT], lateness[COUNT];
    srand(2026);
    int64_t start = now_ns() + 100000000LL;
    for (int i = 0; i < COUNT; i++) deadlines[i] = start + (int64_t)((double)rand() / RAND_MAX * 2e9);
    qsort(deadlines, COUNT, sizeof deadlines[0], ascending);

    int timer = timerfd_create(CLOCK_MONOTONIC, 0), poller = epoll_create1(0);
    if (timer < 0 || poller < 0) { perror("timerfd_create/epoll_create1"); return 1; }
    struct epoll_event interest = { .events = EPOLLIN };
    epoll_ctl(poller, EPOLL_CTL_ADD, timer, &interest);

    for (int next = 0; next < COUNT;) {
        if (now_ns() < deadlines[next]) {
            struct itimerspec when = { .it_value = { deadlines[next] / 1000000000LL, deadlines[next] % 1000000000LL } };
            timerfd_settime(timer, TFD_TIMER_ABSTIME, &when, NULL);
            struct epoll_event ready;
            uint64_t expirations;
            epoll_wait(poller, &ready, 1, -1);
            if (read(timer, &expirations, sizeof expirations) < 0) { perror("read"); return 1; }
        }
        int64_t woke = now_ns();
        while (next < COUNT && deadlines[next] <= woke) { lateness[next] = woke - deadlines[next]; next++; }
    }
    qsort(lateness, COUNT, sizeof lateness[0], ascending);
    printf("p50=%.1f p99=%.1f max=%.1f us; worst five:", lateness[COUNT / 2] / 1e3, lateness[COUNT * 99 / 100] / 1e3,
           lateness[COUNT - 1] / 1e3);
    for (int i = 1; i <= 5; i++) printf(" %.0f", lateness[COUNT - i] / 1e3);
    printf("\n");
    return 0;
}
