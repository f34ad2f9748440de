import Foundation
import RunwayTestKit
import Testing

@testable import RunwayControl

/// What a 1 MiB preserved state costs: a durable save (temporary file, fsync, rename, fsync of the
/// directory) on the writer's queue, and a load with its checksum, which the loop thread does at a restoring launch.
/// Prints medians of 21 runs; `RUNWAY_MEASURE=1 swift test --filter PreservedStateMeasurement`.
@Suite struct PreservedStateMeasurement {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["RUNWAY_MEASURE"] != nil))
    func R1_measureSaveAndLoadOfOneMebibyte() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = PreservedStateStore(directory: directory.path + "/states", byteLimit: 1 << 20, bootID: "boot")
        let state = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var saves: [Duration] = []
        var loads: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<21 {
            saves.append(try clock.measure { try store.save(app: "com.example.a", state: state, versionKey: nil) })
            loads.append(clock.measure { #expect(store.load(app: "com.example.a")?.state.count == 1 << 20) })
        }
        let median = { (values: [Duration]) in values.sorted()[values.count / 2] }
        print("preserved state 1 MiB: save median \(median(saves)), load median \(median(loads)) (21 runs)")
    }
}
