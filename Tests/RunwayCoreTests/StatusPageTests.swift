@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

/// A status page (`Scheduler.statusPage`): the filter, the page and its cursor, and the work bounded by the page
/// size rather than the fleet.
@Suite struct StatusPageTests {
    /// `count` embedded apps `com.example.app0` ..., with `launched` the even ones launched (active once their
    /// messages return).
    static func driver(apps count: Int, launched: Bool = true) -> SimulatedDriver {
        var driver = makeDriver((0..<count).map { AppDescriptor(id: AppID("com.example.app\($0)")) })
        guard launched else { return driver }
        for number in stride(from: 0, to: count, by: 2) { driver = driver.launched(AppID("com.example.app\(number)")) }
        return driver
    }

    @Test func aPageListsAtMostItsLimitAndCountsEveryMatch() {
        let core = Self.driver(apps: 10_000, launched: false).scheduler
        let page = core.statusPage(StatusQuery(limit: 50), now: at(1))
        #expect(page.statuses.count == 50)
        #expect(page.matched == 10_000)
        #expect(page.statuses.first?.app == "com.example.app0")
        #expect(page.next == "com.example.app49")

        let second = core.statusPage(StatusQuery(after: page.next, limit: 50), now: at(1))
        #expect(second.statuses.map(\.app.bundleIdentifier).first == "com.example.app50")
        #expect(second.matched == 10_000)
        #expect(second.next == "com.example.app99")
    }

    @Test func theFiltersSelectByStateAndPatternAndTheLastPageHasNoNext() {
        let core = Self.driver(apps: 100).scheduler
        let active = core.statusPage(StatusQuery(state: .active, limit: 1_000), now: at(1))
        #expect(active.matched == 50)
        #expect(active.statuses.allSatisfy { $0.state == .active })
        #expect(active.next == nil)

        // app1, app10 ... app19: eleven; the odd ones among them are not running.
        let pattern = AppPattern("com.example.app1*")
        let ones = core.statusPage(StatusQuery(pattern: pattern, limit: 4), now: at(1))
        #expect(ones.matched == 11)
        #expect(ones.statuses.map(\.app.bundleIdentifier) == (["1", "10", "11", "12"].map { "com.example.app" + $0 }))
        #expect(ones.next == "com.example.app12")
        let idle = core.statusPage(StatusQuery(state: .notRunning, pattern: pattern, limit: 100), now: at(1))
        #expect(idle.matched == 6)
        #expect(idle.next == nil)

        let one = core.statusPage(StatusQuery(app: "com.example.app7", limit: 100), now: at(1))
        #expect(one.statuses.map(\.app) == ["com.example.app7"] && one.matched == 1)
    }

    @Test(arguments: [
        ("com.example.*", "com.example.mail", true),
        ("com.example.*", "org.example.mail", false),
        ("*.mail", "com.example.mail", true),
        ("*mail?", "com.example.mails", true),
        ("*mail?", "com.example.mail", false),
        ("c*e*l", "com.example.mail", true),
        ("com.example.mail", "com.example.mail", true),
        ("com.example.mai", "com.example.mail", false),
        ("*", "x", true),
        ("a*b*c", "aXbYbZc", true),
        ("a*b*c", "aXbYbZ", false),
    ])
    func aPatternMatchesTheWholeIdentifierWithStarAndQuestionMark(pattern: String, text: String, matches: Bool) {
        #expect(AppPattern(pattern)?.matches(text) == matches)
    }

    @Test func aPatternIsOneTo255Bytes() {
        #expect(AppPattern("") == nil)
        #expect(AppPattern(String(repeating: "a", count: 256)) == nil)
        #expect(AppPattern(String(repeating: "a", count: 255)) != nil)
    }
}
