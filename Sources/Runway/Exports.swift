// The embedding API names types that live below this module: `ProcessOptions`, `ProcessStatus`,
// `MemoryPressureOptions` and `SuspensionMechanism` (RunwayProcesses, the process supervisor's options and report)
// and `LoopThreadPriority` (RunwayLoop, the loop thread's scheduling policy). Re-exporting them keeps
// `import Runway` enough for an embedder; both modules are otherwise `package`, so nothing else is exposed.
@_exported import RunwayLoop
@_exported import RunwayProcesses
