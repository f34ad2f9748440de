@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// A supervisor's children read into one shared buffer; each read is consumed before the next, so
/// lines of children printing at the same time stay whole and with their own app.
@Suite("Children's reads share one buffer", .serialized)
struct SharedReadBufferTests {
    @Test("Two apps printing 3,000 lines each at once: one buffer, every line whole, in order, under its own app")
    func concurrentOutputStaysApart() async throws {
        let log = Recorder<String>()
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal),
            logger: .recording(log)
        )
        let apps: [(AppID, String)] = [("com.test.buffer.a", "alpha"), ("com.test.buffer.b", "bravo")]
        for (app, word) in apps {
            try scheduler.register(process: ProcessTestSupport.shell(app, "seq -f '\(word)-%g' 3000; exec sleep 1000"))
        }
        #expect(scheduler.perform(.launch, onEach: apps.map(\.0)).isEmpty)
        let shared = scheduler.bridge.sync { driver -> Bool in
            let children = apps.compactMap { driver.processSupervisor().apps[$0.0]?.child }
            return children.count == 2 && children[0].sharedReadBuffer === children[1].sharedReadBuffer
        }
        #expect(shared == true, "the two children read into one buffer")
        func lines(_ app: AppID, _ word: String) -> [String] {
            log.values.filter { $0.contains("app=\(app) ") || $0.hasSuffix("app=\(app)") }.compactMap { record in
                guard let range = record.range(of: "line=") else { return nil }
                let value = record[range.upperBound...].prefix { $0 != " " }
                return value.hasPrefix(word) || value.contains("-") ? String(value) : nil
            }
        }
        #expect(
            await eventually(timeout: .seconds(20)) {
                apps.allSatisfy { lines($0.0, $0.1).count >= 3000 }
            }
        )
        for (app, word) in apps {
            #expect(lines(app, word) == (1...3000).map { "\(word)-\($0)" }, "\(app)'s lines")
        }
        await scheduler.shutdown()
    }
}
