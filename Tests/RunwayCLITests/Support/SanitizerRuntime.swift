import Glibc

/// The sanitizer this test process was built with (`make sanitize`), found by its runtime's entry point; the
/// `runway` binaries the tests start come from the same build.
enum SanitizerRuntime {
    /// AddressSanitizer: its quarantine of freed memory, its redzones and its shadow count in every resident-memory
    /// figure, so a bound on a process's memory measures ASan rather than the process.
    static let address = dlsym(nil, "__asan_init") != nil
    /// ThreadSanitizer: it runs the code 5 to 15 times slower, so a workload planned in real time falls behind
    /// its plan and its lateness figures measure TSan.
    static let thread = dlsym(nil, "__tsan_init") != nil
}
