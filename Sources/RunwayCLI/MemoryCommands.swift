import ArgumentParser
import Foundation
import RunwayControl

/// `runway notify APP NAME [--payload JSON]`: posts a host notification to an app (N1).
struct NotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Post a notification to an app (N1); a process app receives a `notification` message.",
        discussion: """
            A running app receives it in order with its other messages; a suspended app has it held, coalesced by \
            name (the last payload wins), and receives it after willEnterForeground and before didBecomeActive. \
            Prints the app's state. Refused (exit 1, code notRunning) when the app is not running or is \
            terminating.
            """
    )

    @OptionGroup var target: AppTarget
    @Argument(help: "The notification's name (1 to 256 bytes).") var name: String
    @Option(help: ArgumentHelp("The notification's payload: a JSON text, passed to the app as is.", valueName: "json"))
    var payload: String?

    func validate() throws {
        guard !self.name.isEmpty, self.name.utf8.count <= 256 else {
            throw ValidationError("NAME must be 1 to 256 bytes")
        }
        if let payload,
            (try? JSONSerialization.jsonObject(with: Data(payload.utf8), options: [.fragmentsAllowed])) == nil
        {
            throw ValidationError("--payload must be valid JSON, got: \(payload)")
        }
    }

    func run() throws {
        let request = ControlRequest(command: "notify", app: self.target.app, name: self.name, payload: self.payload)
        let reply = try self.target.connection.request(request)
        print("\(self.target.app): \(reply.state ?? "?"), notification \(self.name) posted")
    }
}

/// `runway memory-warning [APP]`: `didReceiveMemoryWarning` to one app or every running app (P3).
struct MemoryWarningCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory-warning",
        abstract: "Send didReceiveMemoryWarning to every running app, or to APP (P3).",
        discussion: """
            Without APP, as when memory pressure rises: every app that is active, inactive or in the background \
            (not suspended, not terminating) is sent didReceiveMemoryWarning, at most one pending per app. With \
            APP, that app only; refused (exit 1, code notRunning) when it is not running, suspended or terminating.
            """
    )

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The app's bundle identifier; without it every running app is warned.") var app: String?

    func run() throws {
        let reply = try self.connection.request(ControlRequest(command: "memoryWarning", app: self.app))
        if let app {
            print("\(app): \(reply.state ?? "?"), memory warning sent")
        } else {
            print("memory-warning: sent to every running app")
        }
    }
}

/// `runway purge`: purges one app as under critical memory pressure (P3, S14).
struct PurgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Purge one app as under critical memory pressure (P3, S14); prints it.",
        discussion: """
            One app is terminated without a message (L5), in the order of P8: the longest-suspended app; with none \
            suspended, the app longest in the background doing no work, then one holding a task or a wake-up, then \
            a background-mode app (L7); active and inactive apps never. Nothing to purge is not an error.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let reply = try self.connection.request(ControlRequest(command: "purge"))
        print(reply.purged.map { "purge: purged \($0)" } ?? "purge: nothing to purge")
    }
}
