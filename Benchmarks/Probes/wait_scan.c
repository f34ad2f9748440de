// What one look for an exited child costs the supervisor, against the number of its children: the zombie sweep's
// `waitid(P_ALL, WEXITED | WNOHANG | WNOWAIT)` (Sources/CRunwayProcess/process.c, `runway_peek_exited_child`), which
// the kernel answers by walking the caller's children up to the first that has exited. Forks N children that wait
// in pause(), makes 2,000 looks (none finds an exited child: the walk goes over all N) and prints the CPU time (user
// and system, getrusage) per look. A count of work, not of waiting: the machine's load changes it little.
//
// Build and run:
//   gcc -O2 -o /tmp/wait_scan Benchmarks/Probes/wait_scan.c
//   for n in 10 200 1000 2000; do /tmp/wait_scan $n; done
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

enum { LOOKS = 2000, MAX_CHILDREN = 100000 };

static double cpu_microseconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
           (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 2000;
    if (count < 1 || count > MAX_CHILDREN) {
        fprintf(stderr, "usage: wait_scan [children=2000 (1 to %d)]\n", MAX_CHILDREN);
        return 1;
    }
    pid_t *children = calloc((size_t)count, sizeof(pid_t));
    for (int i = 0; i < count; i++) {
        children[i] = fork();
        if (children[i] == 0) {
            pause();
            _exit(0);
        }
        if (children[i] < 0) {
            perror("fork");
            return 1;
        }
    }
    double start = cpu_microseconds();
    for (int look = 0; look < LOOKS; look++) {
        siginfo_t info = {0};
        waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT);
    }
    double per_look = (cpu_microseconds() - start) / LOOKS;
    printf("{\"children\": %d, \"cpu_us_per_look\": %.2f}\n", count, per_look);
    for (int i = 0; i < count; i++) kill(children[i], SIGKILL);
    for (int i = 0; i < count; i++) waitpid(children[i], NULL, 0);
    free(children);
    return 0;
}
