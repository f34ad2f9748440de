import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("Tracking: a child's RUNWAY_APP is read once in its life, remembered while it is a child, forgotten after")
struct EnvironmentAttributionsTests {
    @Test("The environment is read at the first look only; the answer, a missing one too, is remembered")
    func readOncePerProcess() {
        var attributions = EnvironmentAttributions()
        var reads = 0
        let first = attributions.named(pid: 40, startTime: 7) {
            reads += 1
            return "com.example.app"
        }
        #expect(first.name == "com.example.app" && first.didRead)
        let again = attributions.named(pid: 40, startTime: 7) {
            reads += 1
            return "com.example.other"
        }
        #expect(again.name == "com.example.app" && !again.didRead)
        let none = attributions.named(pid: 41, startTime: 7) {
            reads += 1
            return nil
        }
        #expect(none.name == nil && none.didRead)
        let noneAgain = attributions.named(pid: 41, startTime: 7) {
            reads += 1
            return "com.example.app"
        }
        #expect(noneAgain.name == nil && !noneAgain.didRead)
        #expect(reads == 2)
        #expect(attributions.known(pid: 41, startTime: 7) == .some(nil))
    }

    @Test("A new process with a reused pid (another start time) is read again")
    func aReusedPidIsReadAgain() {
        var attributions = EnvironmentAttributions()
        _ = attributions.named(pid: 40, startTime: 7) { "com.example.app" }
        #expect(attributions.known(pid: 40, startTime: 8) == nil)
        let reused = attributions.named(pid: 40, startTime: 8) { nil }
        #expect(reused.didRead && reused.name == nil)
        #expect(attributions.known(pid: 40, startTime: 7) == nil)
    }

    @Test("Only processes still among this process's children are remembered")
    func onlyPresentChildrenAreRemembered() {
        var attributions = EnvironmentAttributions()
        for pid in Int32(50)..<Int32(54) { _ = attributions.named(pid: pid, startTime: 1) { "com.example.app" } }
        attributions.keep(children: [51, 53, 99])
        #expect(attributions.count == 2)
        #expect(attributions.known(pid: 50, startTime: 1) == nil)
        #expect(attributions.known(pid: 51, startTime: 1) == .some("com.example.app"))
        #expect(attributions.known(pid: 53, startTime: 1) == .some("com.example.app"))
    }
}
