@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

/// A status page taken in slices (`Scheduler.statusPageSlice`): each slice compares and snapshots at most its
/// limits, whatever the fleet, and the slices together list what the page taken at once lists.
@Suite struct StatusPageSliceTests {
    /// Slices of `query` until complete: the rows, the cursor, and the most compared and listed by one slice.
    static func sliced(
        _ core: Scheduler,
        _ query: StatusQuery,
        compareLimit: Int,
        stepLimit: Int = .max,
        snapshotLimit: Int
    ) -> (rows: [AppStatus], cursor: StatusPageCursor, mostCompared: Int, mostRows: Int, slices: Int) {
        var cursor = core.statusPageCursor(query)
        var rows: [AppStatus] = []
        var mostCompared = 0
        var mostRows = 0
        var slices = 0
        while !cursor.isComplete {
            let before = cursor.compared
            let slice = core.statusPageSlice(
                &cursor,
                now: at(1),
                compareLimit: compareLimit,
                stepLimit: stepLimit,
                snapshotLimit: snapshotLimit
            )
            mostCompared = max(mostCompared, cursor.compared - before)
            mostRows = max(mostRows, slice.count)
            rows += slice
            slices += 1
        }
        return (rows, cursor, mostCompared, mostRows, slices)
    }

    @Test func eachSliceIsBoundedAndTheSlicesListThePage() {
        let core = StatusPageTests.driver(apps: 10_000).scheduler
        for query in [
            StatusQuery(limit: 1_000),
            StatusQuery(after: "com.example.app4999", limit: 300),
            StatusQuery(state: .active, pattern: AppPattern("com.example.app1*"), limit: 100),
        ] {
            let whole = core.statusPage(query, now: at(1))
            let sliced = Self.sliced(core, query, compareLimit: 2_048, snapshotLimit: 32)
            #expect(sliced.rows.map(\.app) == whole.statuses.map(\.app))
            #expect(sliced.cursor.matched == whole.matched)
            #expect(sliced.cursor.next == whole.next)
            #expect(sliced.mostCompared <= 2_048)
            #expect(sliced.mostRows <= 32)
        }
        // 1,000 rows at 32 a slice: 32 slices list them, the last comparing up to app 3,039; the other 6,960 apps
        // are compared in 4 more.
        #expect(Self.sliced(core, StatusQuery(limit: 1_000), compareLimit: 2_048, snapshotLimit: 32).slices == 36)
    }

    @Test func oneAppIsComparedAloneAndAnUnknownOneNotAtAll() {
        let core = StatusPageTests.driver(apps: 10_000).scheduler
        let one = Self.sliced(core, StatusQuery(app: "com.example.app9999"), compareLimit: 2_048, snapshotLimit: 32)
        #expect(one.rows.map(\.app) == ["com.example.app9999"])
        #expect(one.cursor.compared == 1 && one.slices == 1)
        let unknown = Self.sliced(core, StatusQuery(app: "com.example.none"), compareLimit: 2_048, snapshotLimit: 32)
        #expect(unknown.rows.isEmpty && unknown.cursor.compared == 0 && unknown.slices == 0)
    }

    /// A pattern of 252 bytes against names of 250 bytes costs tens of thousands of steps a compare: the slices stop
    /// at the step limit, not after 2,048 such compares, and still list the page.
    @Test func aCostlyPatternIsBoundedByStepsNotByAppsCompared() {
        let stem = String(repeating: "a", count: 240)
        let core = makeDriver((0..<300).map { AppDescriptor(id: AppID("\(stem).x\($0)")) }).scheduler
        let costly = AppPattern("*" + String(repeating: "a", count: 250) + "b")!
        var steps = 0
        #expect(!costly.matches("\(stem).x0", steps: &steps))
        #expect(steps > 2_000)
        let query = StatusQuery(pattern: costly, limit: 10)
        let sliced = Self.sliced(core, query, compareLimit: 2_048, stepLimit: 131_072, snapshotLimit: 32)
        #expect(sliced.rows.isEmpty && sliced.cursor.matched == 0 && sliced.cursor.compared == 300)
        let perCompare = steps
        #expect(sliced.mostCompared <= 131_072 / perCompare + 1)
        #expect(sliced.slices >= 300 / (131_072 / perCompare + 1))
        let listed = Self.sliced(
            core,
            StatusQuery(pattern: AppPattern("*.x29?")!, limit: 10),
            compareLimit: 2_048,
            stepLimit: 1_000,
            snapshotLimit: 32
        )
        #expect(listed.rows.map(\.app.bundleIdentifier) == (290..<300).map { "\(stem).x\($0)" })
    }
}
