import RunwayCore

extension ConfiguredApp {
    /// The app with `user` (the daemon-wide `AppUserName`) when it is a process app without a `UserName` of its
    /// own; unchanged otherwise.
    func runningAs(_ user: AppUser?) -> ConfiguredApp {
        guard let user, case .process(var spec) = self.descriptor.kind, spec.user == nil else { return self }
        spec.user = user
        var app = self
        app.descriptor.kind = .process(spec)
        return app
    }
}

extension RunwayConfiguration {
    /// One warning per process app that a daemon running as `daemonUID` with the configured suspension mechanism
    /// cannot contain (`AppContainment`): `runway validate` prints them. They are not configuration errors (the
    /// same files are fine for a daemon of another user), so they are not in `warnings`.
    package func containmentWarnings(daemonUID: UInt32) -> [ConfigWarning] {
        let inCgroup = self.daemon.suspensionMechanism != .signal
        return self.apps.compactMap { app in
            guard case .process(let spec) = app.descriptor.kind,
                let reason = AppContainment.of(user: spec.user, daemonUID: daemonUID, inCgroup: inCgroup).reason
            else { return nil }
            let key = spec.user == nil ? "" : "UserName"
            return ConfigWarning(
                file: app.file,
                keyPath: key,
                message: "\(app.descriptor.id) is not contained: it \(reason) (Docs/Security.md, containment)"
            )
        }
    }
}
