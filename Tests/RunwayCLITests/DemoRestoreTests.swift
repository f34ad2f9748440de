import Foundation
import Testing

/// `make demo-restore` (Scripts/demo-restore.py) on the built `runway`: a real daemon, the Python sample app, a
/// purge and a summon; the counter the app preserved in didEnterBackground is the one its restored launch starts
/// from, and the launch's event shows the restoration (R1, R2).
@Suite(.serialized) struct DemoRestoreTests {
    @Test func R2_thePurgedSampleAppIsSummonedWithItsCounterIntact() throws {
        let script = RunwayBinary.repositoryRoot().appendingPathComponent("Scripts/demo-restore.py").path
        let result = try shell("/usr/bin/env", ["python3", script, try RunwayBinary.executable().path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("demo-restore: counter intact: preserved"), "\(result.output)")
        #expect(result.output.contains(#""restoration":"purged""#), "\(result.output)")
    }
}
