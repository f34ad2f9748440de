// The embedding API names types that live below this module: `LoopThreadPriority` (RunwayLoop, the loop thread's
// scheduling policy) and, under `@_spi(Processes)`, `ProcessOptions`, `ProcessStatus`, `MemoryPressureOptions` and
// `SuspensionMechanism` (RunwayProcesses, the process supervisor's options and report). Re-exporting them keeps
// `import Runway` (with the SPI group where needed) enough for an embedder; both modules are otherwise `package`.
@_exported import RunwayLoop
@_exported import RunwayProcesses
