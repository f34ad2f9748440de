import ArgumentParser
import Foundation
import RunwayControl

extension StatusCommand {
    /// `status --watch`: one request every `interval` on one connection until interrupted or the daemon stops.
    ///
    /// The table is redrawn in place on a terminal (else printed frame after frame, a blank line between), under a
    /// header line with the wall-clock time; with `--json` every reply is one compact line (JSON lines, no header,
    /// no blank line). When the daemon closes the connection (it stopped) this prints
    /// `runway status: the daemon stopped (PATH closed the connection)`, on standard output (standard error with
    /// `--json`, so that standard output stays JSON lines), and returns: exit 0. Blocks the calling thread.
    func watchUntilStopped(_ request: ControlRequest) throws {
        let client = try self.connection.connect()
        let path = try self.connection.socketPath
        let terminal = isatty(STDOUT_FILENO) == 1
        while true {
            let reply: ControlReply
            do throws(ControlClientError) {
                reply = try client.request(request)
            } catch {
                guard error.kind == .closed else { throw clientFailure(error) }
                let line = "runway status: the daemon stopped (\(path) closed the connection)"
                if self.json { printError(line) } else { writeOut(line + "\n") }
                return
            }
            let checkedReply = try checked(reply, of: request, on: client)
            if self.json {
                writeOut(self.jsonText(checkedReply) + "\n")
            } else {
                let text =
                    Self.watchHeader(interval: self.interval, now: Date()) + "\n" + StatusTable.render(checkedReply)
                if terminal {
                    // Cursor home, each line cleared to its end, then the rest of the screen cleared: redrawn in
                    // place, without flicker and without pushing copies into the terminal's scrollback.
                    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                    writeOut("\u{1B}[H" + lines.map { $0 + "\u{1B}[K\n" }.joined() + "\u{1B}[J")
                } else {
                    writeOut(text + "\n")
                }
            }
            Thread.sleep(forTimeInterval: self.interval)
        }
    }

    /// `Every 1.0s: runway status    2026-11-23 14:05:00 +0000`: the interval and the local wall-clock time, as
    /// watch(1) heads its screen.
    static func watchHeader(interval: Double, now: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss ZZZ"
        return String(format: "Every %.1fs: runway status", interval) + "    " + formatter.string(from: now)
    }
}
