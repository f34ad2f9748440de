// What a child that borrows this process's memory until its exec (CLONE_VM | CLONE_VFORK) needs: a stack of its own
// and, for a clone into a cgroup, clone3 with a function to run on that stack (glibc exports no clone3 wrapper).
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "spawn_internal.h"

/// The stack a CLONE_VM child runs on until its exec, one per spawning thread, allocated at its first spawn and
/// freed when the thread ends: the parent is suspended while the child uses it, so one thread never needs two. A
/// fresh 64 KiB allocation per spawn grew and shrank the thread's malloc arena (an `mprotect` each time) and faulted
/// its pages in again. NULL when the allocation fails (the spawn then forks).
static pthread_key_t runway_spawn_stack_key = 0;
static pthread_once_t runway_spawn_stack_once = PTHREAD_ONCE_INIT;
static int runway_spawn_stack_key_ready = 0;

static void runway_spawn_stack_make_key(void) {
    runway_spawn_stack_key_ready = pthread_key_create(&runway_spawn_stack_key, free) == 0;
}

void *runway_spawn_stack(void) {
    pthread_once(&runway_spawn_stack_once, runway_spawn_stack_make_key);
    if (!runway_spawn_stack_key_ready) return NULL;
    void *stack = pthread_getspecific(runway_spawn_stack_key);
    if (stack != NULL) return stack;
    stack = malloc(RUNWAY_SPAWN_STACK_BYTES);
    if (stack != NULL && pthread_setspecific(runway_spawn_stack_key, stack) != 0) {
        free(stack);
        return NULL;
    }
    return stack;
}

#if RUNWAY_HAS_CLONE3_VM
/// clone3 with a function to run on the new stack, as glibc 2.34's internal `__clone3` does:
/// `long runway_clone3_vm(struct runway_clone_args *args, size_t size, int (*fn)(void *), void *arg)`.
/// Returns the child's pid or -errno in the parent. The child, whose stack pointer the kernel set to
/// `args->stack + args->stack_size`, touches nothing of the caller's frame: it calls `fn(arg)` on its own stack
/// and exits with its result (`fn` execs or `_exit`s first). `syscall` keeps rdx and r8 (it clobbers rax, rcx,
/// r11), which carry `fn` and `arg` across it. The parameters are read by the assembly only, hence `unused`.
#define RUNWAY_ASM_ONLY __attribute__((unused))
__attribute__((naked, noinline, used)) long runway_clone3_vm(RUNWAY_ASM_ONLY struct runway_clone_args *args,
                                                            RUNWAY_ASM_ONLY size_t size,
                                                            RUNWAY_ASM_ONLY int (*fn)(void *),
                                                            RUNWAY_ASM_ONLY void *arg) {
    __asm__ volatile(
        "mov %rcx, %r8\n\t"
        "mov $435, %eax\n\t" /* SYS_clone3 */
        "syscall\n\t"
        "test %rax, %rax\n\t"
        "jz 1f\n\t"
        "ret\n"
        "1:\n\t"
        "xor %ebp, %ebp\n\t"
        "mov %r8, %rdi\n\t"
        "call *%rdx\n\t"
        "mov %eax, %edi\n\t"
        "mov $60, %eax\n\t" /* SYS_exit */
        "syscall\n\t"
        "hlt\n\t");
}
#endif
