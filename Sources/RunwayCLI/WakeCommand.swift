import ArgumentParser
import Foundation
import RunwayControl

/// `runway wake APP --reason fetch|remote-notification [--payload JSON]`: a background wake-up (W1).
struct WakeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wake",
        abstract: "Wake an app in the background for a fetch or a remote notification (W1).",
        discussion: """
            A suspended app is resumed and a not-running one launched into the background; it receives a \
            backgroundWake message with a token and a fresh budget of BackgroundWakeBudget (30 s by default; per app \
            RunwayBackgroundWakeBudget), and is suspended again when it calls completion with the token or when \
            that budget runs out (W4). An app already in the background keeps running, its deadline at least that \
            far away (W2). An app in the foreground receives a remote notification with no budget change and is \
            refused a fetch (W3). Prints the app's state and the wake-up's token. Refused (exit 1) with code \
            notWakeable (W3), tooManyWakes (BackgroundWakeLimitPerApp), payloadTooLarge \
            (BackgroundWakePayloadByteLimit, 4096 bytes by default) or stopping; spawnFailed (exit 1) when the \
            program of a not-running process app could not be started.
            """
    )

    /// The reasons an operator may give; `refresh` is sent by the scheduler for a scheduled refresh (W7).
    enum Reason: String, ExpressibleByArgument, CaseIterable {
        case fetch
        case remoteNotification = "remote-notification"
    }

    @OptionGroup var target: AppTarget
    @Option(help: ArgumentHelp("Why the app is woken.", valueName: "fetch|remote-notification"))
    var reason: Reason
    @Option(help: ArgumentHelp("The wake-up's payload: a JSON text, passed to the app as is.", valueName: "json"))
    var payload: String?

    func validate() throws {
        if let payload,
            (try? JSONSerialization.jsonObject(with: Data(payload.utf8), options: [.fragmentsAllowed])) == nil
        {
            throw ValidationError("--payload must be valid JSON, got: \(payload)")
        }
    }

    func run() throws {
        let request = ControlRequest(
            command: "wake",
            app: self.target.app,
            payload: self.payload,
            reason: self.reason.rawValue
        )
        let reply = try self.target.connection.request(request)
        let token = reply.wake.map { "wake#\($0)" } ?? "?"
        print("\(self.target.app): \(reply.state ?? "?"), woken for \(self.reason.rawValue) (\(token))")
    }
}
