import Glibc

/// The sanitizer this test process was built with (`make sanitize`), found by its runtime's entry point; the
/// `runway` binaries the tests start come from the same build.
enum SanitizerRuntime {
    /// AddressSanitizer: its quarantine of freed memory, its redzones and its shadow count in every resident-memory
    /// figure, so a bound on a process's memory measures ASan rather than the process.
    static let address = dlsym(nil, "__asan_init") != nil
}
