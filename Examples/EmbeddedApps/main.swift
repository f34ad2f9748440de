// Two embedded apps on a Runway scheduler inside a ServiceGroup: a mail app that finishes sending in the
// background, and a sync app that ignores its expiration warning and is terminated at the deadline.
// Run: `swift run RunwayExample`. It exits by itself after about two seconds (or on Ctrl-C).

import Logging
import Runway
import RunwayCore
import ServiceLifecycle

final class MailApp: RunwayAppDelegate {
    func didEnterBackground(_ application: RunwayApplication) async {
        // Ask for time to finish sending, and end the task when done.
        let task = application.beginBackgroundTask(withName: "send-outbox")
        application.executor.submit {
            try? await Task.sleep(for: .milliseconds(100))
            try? application.endBackgroundTask(task)
        }
    }
}

final class SyncApp: RunwayAppDelegate {
    func didEnterBackground(_ application: RunwayApplication) async {
        // Never ends its task: Runway warns, then terminates it at the deadline (S12).
        _ = application.beginBackgroundTask(withName: "full-sync") {
            print("sync: expiration handler called; ignoring it")
        }
    }
}

@main
struct Example {
    static func main() async throws {
        var logger = Logger(label: "runway.example")
        logger.logLevel = .info
        let settings = SchedulerSettings(
            backgroundTimeBudget: .milliseconds(600),
            expirationWarningLead: .milliseconds(200),
            terminationGrace: .milliseconds(300)
        )
        let scheduler = try RunwayScheduler(settings: settings, logger: logger)
        let mail: AppID = "com.example.mail"
        let sync: AppID = "com.example.sync"
        try scheduler.register(AppDescriptor(id: mail), delegate: MailApp())
        try scheduler.register(AppDescriptor(id: sync), delegate: SyncApp())

        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: scheduler)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        let transitions = scheduler.transitions()
        async let printed: Void = {
            for await event in transitions { print(event) }
        }()
        async let driven: Void = {
            try scheduler.send(.launch, to: mail)
            try scheduler.send(.launch, to: sync)
            try await Task.sleep(for: .milliseconds(100))
            try scheduler.perform(.home, on: mail)
            try scheduler.perform(.home, on: sync)
            try await Task.sleep(for: .seconds(1))
            // As SIGTERM would: the group shuts the scheduler down gracefully (P4).
            await group.triggerGracefulShutdown()
        }()
        try await group.run()
        try await driven
        await printed
    }
}
