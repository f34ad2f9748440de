import RunwayCore

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

/// Records a child's output lines (`out:` and `err:` prefixed) and its exit.
final class LineRecorder: ChildProcessDelegate {
    var lines: [String] = []
    var exit: ProcessExit?
    func child(_ child: ChildProcess, printed line: String, isError: Bool, truncated: Bool) {
        self.lines.append((isError ? "err:" : "out:") + line)
    }
    func child(_ child: ChildProcess, throttledOutput isError: Bool, pauses: Int) {}
    func child(_ child: ChildProcess, sent frame: LineFramer.Frame) {}
    func childClosedChannel(_ child: ChildProcess, status: Int32) {}
    func child(_ child: ChildProcess, exited exit: ProcessExit) { self.exit = exit }
}
