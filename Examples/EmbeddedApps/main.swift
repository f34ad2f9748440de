// Two apps embedded in a service: a mail app that sends its outbox in the background and ends its task in time,
// so it is suspended, and a sync app that ignores its expiration warning and is terminated at the deadline.
// README.md shows this file verbatim. Run it with `swift run RunwayExample`: it stops by itself after about two
// seconds, or on Ctrl-C.

import Logging
import Runway
import RunwayCore
import ServiceLifecycle

final class MailApp: RunwayAppDelegate {
    func didEnterBackground(_ application: RunwayApplication) async {
        // Ask for time before returning: an app that enters the background with no task is suspended at once.
        let task = application.beginBackgroundTask(withName: "send-outbox") { task in
            // The expiration handler, on the scheduler's loop thread, ExpirationWarningLead before the deadline. It
            // is given its task's id, so it can end the task without capturing a mutable variable.
            print("mail: still sending when time ran out; ending \(task)")
            try? application.endBackgroundTask(task)
        }
        // The app's executor holds work while the app is suspended and cancels it when the app terminates.
        application.executor.submit {
            await sendOutbox()
            // Its last task: the app is suspended now. If the handler ended it first, this throws alreadyEnded.
            try? application.endBackgroundTask(task)
        }
    }
}

final class SyncApp: RunwayAppDelegate {
    func didEnterBackground(_ application: RunwayApplication) async {
        _ = application.beginBackgroundTask(withName: "full-sync") {
            print("sync: expiration handler called; ignoring it")  // so it is terminated at the deadline
        }
    }
}

/// Stands in for the mail app's real work.
func sendOutbox() async {
    try? await Task.sleep(for: .milliseconds(100))
}

var logger = Logger(label: "runway.example")
logger.logLevel = .info
let scheduler = try RunwayScheduler(
    settings: SchedulerSettings(
        backgroundTimeBudget: .milliseconds(600),
        expirationWarningLead: .milliseconds(200),
        terminationGrace: .milliseconds(300)
    ),
    logger: logger
)
let mail: AppID = "com.example.mail"
let sync: AppID = "com.example.sync"
try scheduler.register(AppDescriptor(id: mail), delegate: MailApp())
try scheduler.register(AppDescriptor(id: sync), delegate: SyncApp())

// Subscribe before the first command: a stream sees the transitions from its creation on.
let transitions = scheduler.transitions()
let printer = Task {
    for await event in transitions { print(event) }  // the stream finishes when the scheduler stops
}

// The scheduler is a Service: SIGTERM or SIGINT shut the group down gracefully, which terminates every app.
let group = ServiceGroup(
    configuration: ServiceGroupConfiguration(
        services: [.init(service: scheduler)],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    )
)
// What a user would do: launch both apps, press Home on each, and later stop the service.
let user = Task {
    try scheduler.perform(.launch, on: mail)
    try scheduler.perform(.launch, on: sync)
    try await Task.sleep(for: .milliseconds(100))
    try scheduler.perform(.home, on: mail)
    try scheduler.perform(.home, on: sync)
    try await Task.sleep(for: .seconds(1))
    await group.triggerGracefulShutdown()  // as SIGTERM would
}
try await group.run()
try await user.value
await printer.value
