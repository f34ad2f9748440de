@_spi(Driver) import RunwayCore
import Testing

// Helpers for the action-list tests (the `*ActionTests.swift` files). Those tests drive `Scheduler` directly
// with explicit instants and compare the complete action list of every call with `==`, as async-http-client's
// state-machine tests do. They use the public surface only, so that a rewrite of the core's internals compiles
// against them unchanged.
//
// Message tokens are read from the list under test (`token(_:to:in:)`) instead of being hard-coded, so that a
// change of token numbering alone does not fail a test; the token's position, its message and its app are still
// compared exactly, as is every other action.

let protocolApp: AppDescriptor = process(mail, speaksProtocol: true)
let plainApp: AppDescriptor = process(mail, speaksProtocol: false)
/// The apps that await their messages: embedded, and a process that speaks the protocol.
let awaitingApps: [AppDescriptor] = [AppDescriptor(id: mail), protocolApp]

/// A scheduler on `settings` with `descriptors` registered in order.
func makeScheduler(
    _ descriptors: [AppDescriptor] = [AppDescriptor(id: mail)],
    settings: SchedulerSettings = SchedulerSettings()
) throws -> Scheduler {
    var scheduler = Scheduler(settings: settings)
    for descriptor in descriptors {
        try scheduler.register(descriptor)
    }
    return scheduler
}

/// The token of the one delivery of `message` to `app` in `actions`.
///
/// When there is no such delivery, or more than one, records an issue and returns a token that no delivery
/// carries, so that the complete-list assertion that follows fails as well.
func token(
    _ message: Message,
    to app: AppID,
    in actions: [Action],
    sourceLocation: SourceLocation = #_sourceLocation
) -> MessageToken {
    let tokens = actions.compactMap { action -> MessageToken? in
        guard case .deliver(app, message, let token) = action else { return nil }
        return token
    }
    guard tokens.count == 1, let found = tokens.first else {
        Issue.record("expected one delivery of \(message) to \(app) in \(actions)", sourceLocation: sourceLocation)
        return MessageToken(rawValue: .max)
    }
    return found
}

/// The `.publish` action of one transition (L8).
func published(
    _ app: AppID,
    _ from: AppState,
    _ to: AppState,
    _ cause: TransitionCause,
    at instant: Instant,
    _ messages: [Message] = [],
    exit: ProcessExit? = nil,
    asked userAction: UserAction? = nil
) -> Action {
    .publish(
        TransitionEvent(
            app: app,
            from: from,
            to: to,
            cause: cause,
            at: instant,
            messages: messages,
            exit: exit,
            userAction: userAction
        )
    )
}

extension Scheduler {
    /// Reports that the delivery of `message` to `app` found in `actions` returned, at `now`.
    mutating func acknowledge(
        _ message: Message,
        of app: AppID,
        in actions: [Action],
        now: Instant,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Action] {
        self.messageReturned(token(message, to: app, in: actions, sourceLocation: sourceLocation), from: app, now: now)
    }

    /// Setup only: acknowledges every delivery in `actions`, and every delivery those acknowledgements bring, at
    /// `now`, until none is left. Returns every action that came back, in order.
    @discardableResult
    mutating func acknowledgeAll(_ actions: [Action], now: Instant) -> [Action] {
        var all: [Action] = []
        var queue = actions
        while !queue.isEmpty {
            let action = queue.removeFirst()
            guard case .deliver(let app, _, let token) = action else { continue }
            let next = self.messageReturned(token, from: app, now: now)
            all += next
            queue += next
        }
        return all
    }

    /// Setup only: `command` for `app` at `now`, every delivery acknowledged at once.
    @discardableResult
    mutating func run(_ command: Command, for app: AppID, now: Instant) throws -> [Action] {
        let actions = try self.commandReceived(command, for: app, now: now)
        return actions + self.acknowledgeAll(actions, now: now)
    }

    /// Setup only: begins a task and returns its id; records an issue when it is refused.
    mutating func beginTask(
        _ name: String,
        in app: AppID,
        now: Instant,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> BackgroundTaskID {
        let grant = self.backgroundTaskRequested(name: name, by: app, now: now)
        if grant.id == .invalid {
            Issue.record("task \(name) refused: \(String(describing: grant.refusal))", sourceLocation: sourceLocation)
        }
        return grant.id
    }
}

/// `error` without where it was thrown, so that every field a caller sees can be compared with `==`.
func unlocated(_ error: SchedulerError) -> SchedulerError {
    var copy = error
    copy.file = ""
    copy.line = 0
    return copy
}

/// What follows a transition of `descriptor`'s app to `state`: for a process app, its OOM score (P3: active 0,
/// inactive 200, background 500, suspended 1000); nothing for an embedded app.
func oomScore(_ descriptor: AppDescriptor, _ state: AppState) -> [Action] {
    guard descriptor.isProcess else { return [] }
    let scores: [AppState: Int] = [.active: 0, .inactive: 200, .background: 500, .suspended: 1_000]
    return scores[state].map { [.setOOMScoreAdjust(descriptor.id, $0)] } ?? []
}
