import Testing

@testable import RunwayProcesses

/// When the light look runs between the looks events make (`SettlingLooks`): a bounded series after each activity,
/// then nothing, so an idle fleet is not woken.
@Suite("Settling looks")
struct SettlingLooksTests {
    @Test("P1: an activity is followed by four looks, 1, 2, 4 and 8 bases apart, then none")
    func P1_activityIsFollowedByABoundedSeries() {
        var looks = SettlingLooks(baseMilliseconds: 250)
        // Expected: armed 250 ms after the activity; then 500, 1,000 and 2,000 ms after each look; then stopped.
        #expect(looks.activity() == .arm(milliseconds: 250))
        #expect(looks.looked() == .arm(milliseconds: 500))
        #expect(looks.looked() == .arm(milliseconds: 1_000))
        #expect(looks.looked() == .arm(milliseconds: 2_000))
        #expect(looks.looked() == .stop)
        #expect(!looks.isArmed)
        #expect(looks.looked() == .stop, "a look after the series arms nothing")
    }

    @Test("P1: activities while a look is armed arm nothing and restart the series at the next look")
    func P1_activityDuringASeriesRestartsIt() {
        var looks = SettlingLooks(baseMilliseconds: 10)
        #expect(looks.activity() == .arm(milliseconds: 10))
        #expect(looks.looked() == .arm(milliseconds: 20))
        // A burst of activities (N launches in one turn) costs no re-arming.
        for _ in 0..<1_000 { #expect(looks.activity() == .keep) }
        #expect(looks.looked() == .arm(milliseconds: 10))
        #expect(looks.looked() == .arm(milliseconds: 20))
        #expect(looks.looked() == .arm(milliseconds: 40))
        #expect(looks.looked() == .arm(milliseconds: 80))
        #expect(looks.looked() == .stop)
    }

    @Test("a stopped series arms again on the next activity; the base is at least 1 ms")
    func stoppedSeriesArmsAgain() {
        var looks = SettlingLooks(baseMilliseconds: 0)
        let stoppedUnarmed = looks.stopped()
        #expect(!stoppedUnarmed)
        #expect(looks.activity() == .arm(milliseconds: 1))
        let stoppedArmed = looks.stopped()
        #expect(stoppedArmed)
        #expect(!looks.isArmed)
        #expect(looks.activity() == .arm(milliseconds: 1))
    }
}
