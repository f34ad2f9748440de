import RunwayCore

/// Bounds of the event loop's options, in one place for the runtime (`RunwayScheduler(loopPriority:wakeupSpin:)`
/// in Runway) and the config loader (`LoopRealtimePriority`, `LoopWakeupSpin` in RunwayConfig), which do not
/// depend on each other. Not part of the embedding API (an embedder reads `LoopThreadPriority.realtimePriorities`
/// in Runway): visible outside this package only to `@_spi(Benchmarks) import RunwayCore`.
@_spi(Benchmarks)
public enum LoopLimits {
    /// The SCHED_FIFO priorities Linux accepts (higher runs first).
    public static let realtimePriorities: ClosedRange<Int32> = 1...99
    /// The longest wake-up spin: spinning longer than a millisecond is sleeping's job.
    public static let maximumWakeupSpin = TimeSpan.milliseconds(1)
}
